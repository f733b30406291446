/**
 * Main-process probes for the extraction bench: the longest event-loop stall, and the peak RSS of the whole
 * process (worker threads share it) and of the processes it started (the OCR engine runs in one of its own), both
 * while some work runs.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  let childrenSeen = false;
  const sampler = setInterval(() => {
    const children = descendantsRss();
    childrenSeen ||= children > 0;
    sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss() + children);
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
      peakMethod: `${kernelPeakBytes === undefined ? 'RSS sampled every 5 ms' : 'VmHWM (kernel peak) and 5 ms samples'}${childrenSeen ? ', child processes (the OCR engine) included' : ''}`,
    };
  } finally {
    clearInterval(sampler);
    delay.disable();
  }
}

/** RSS of every process this one started, and theirs (Linux; 0 elsewhere). */
function descendantsRss(pid: number | 'self' = 'self'): number {
  let total = 0;
  try {
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8').split(' ').filter(Boolean)) {
        const pages = Number(readFileSync(`/proc/${child}/statm`, 'utf8').split(' ')[1]);
        total += pages * 4096 + descendantsRss(Number(child));
      }
    }
  } catch {
    // A process or thread that ended between two reads: counted as far as it was read.
  }
  return total;
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

/**
 * The longest stall of this event loop while it does nothing: on a shared machine the scheduler alone delays a
 * timer, and this says how much of a stall figure is that.
 */
export async function idleStall(ms: number): Promise<number> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  await new Promise((resolve) => setTimeout(resolve, ms));
  loop.disable();
  return loop.max / 1e6;
}
