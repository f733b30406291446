/**
 * Wall and CPU seconds of a piece of work. CPU time is the steadier figure on a shared machine: other people's
 * load stretches wall time but not the CPU a conversion needs. Ours counts every thread of this process (workers
 * included); outside tools are counted through the children's CPU time the kernel adds up for us.
 */
import { readFileSync } from 'node:fs';

export interface Timing {
  wallSeconds: number;
  cpuSeconds: number;
}

/** Times work done in this process (main thread and worker threads). */
export async function timeInProcess(work: () => Promise<unknown>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wallSeconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** Times work done by child processes that have exited and been waited for; CPU is NaN off Linux. */
export async function timeChildren(work: () => Promise<unknown>): Promise<Timing> {
  const before = childrenCpuSeconds();
  const started = performance.now();
  await work();
  return { wallSeconds: (performance.now() - started) / 1000, cpuSeconds: childrenCpuSeconds() - before };
}

export async function bestOf(rounds: number, measure: () => Promise<Timing>): Promise<Timing> {
  let best: Timing = { wallSeconds: Infinity, cpuSeconds: Infinity };
  for (let round = 0; round < rounds; round++) {
    const timing = await measure();
    best = { wallSeconds: Math.min(best.wallSeconds, timing.wallSeconds), cpuSeconds: Math.min(best.cpuSeconds, timing.cpuSeconds) };
  }
  return best;
}

/** cutime + cstime from /proc/self/stat (fields 16 and 17, in clock ticks of 1/100 s on Linux). */
function childrenCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}
