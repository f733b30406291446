/**
 * Main-process probes for the extraction bench: the longest event-loop stall, and the peak RSS of the whole
 * process (worker threads share it), both while some work runs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface ProbeResult<T> {
  result: T;
  maxStallMs: number;
  peakRssMb: number;
  /** How the peak was found: the kernel's high-water mark when Linux lets us reset it, else sampling. */
  peakMethod: string;
}

export async function probeWhile<T>(work: () => Promise<T>): Promise<ProbeResult<T>> {
  const kernelPeak = resetKernelPeak();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let sampledPeak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
  }, 5);
  delay.enable();
  try {
    const result = await work();
    delay.disable();
    const kernelPeakBytes = kernelPeak ? readKernelPeakBytes() : undefined;
    const peak = Math.max(sampledPeak, kernelPeakBytes ?? 0);
    return {
      result,
      // The histogram counts from when each 1 ms timer was due, so its max is the longest time the loop was busy.
      maxStallMs: delay.max / 1e6,
      peakRssMb: peak / (1024 * 1024),
      peakMethod: kernelPeakBytes === undefined ? 'RSS sampled every 5 ms' : 'VmHWM (kernel peak) and 5 ms samples',
    };
  } finally {
    clearInterval(sampler);
    delay.disable();
  }
}

/** Writing 5 to clear_refs resets VmHWM (Linux ≥ 4.0), so the peak is this phase's, not start-up's. */
function resetKernelPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return readKernelPeakBytes() !== undefined;
  } catch {
    return false;
  }
}

function readKernelPeakBytes(): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
