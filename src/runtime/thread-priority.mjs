/**
 * Which work gets a CPU first when there are not enough of them. The receiver's thread acknowledges Slack (3
 * seconds, then Slack retries) and the event loop runs the answers; neither must wait behind background work.
 * With two busy extraction workers on a two-core machine, V8's helper threads (they garbage-collect and compile
 * for every isolate in the process, the workers' included) took about 0.9 of a core at normal priority, and in a
 * burst of 50 mentions the event loop waited for a CPU longer than it ran (bench: load.ack_p99_ms). So, by
 * niceness, counted from what the process inherited: the receiver and the event loop as started; the embedded
 * database 5 lower (answers wait on it, acknowledgements do not); reading documents and the helpers 10 lower.
 * Only ever lower: an operator who starts threadwise under `nice -n 19` gets every thread at 19, never one raised
 * back to 10 (root may raise a priority, so setpriority() alone would not stop it).
 *
 * Plain JavaScript so that every thread can load it, the database's included, which runs without tsx. Linux
 * applies setpriority() to the single thread whose id it is given; lowering a priority needs no privilege.
 * Elsewhere (no /proc) these do nothing, and every thread keeps the normal priority.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How much lower than the event loop each kind of thread runs, in niceness steps. */
export const DATABASE_NICENESS = 5;
export const BACKGROUND_NICENESS = 10;
/** The lowest priority Linux has. */
const LOWEST = 19;

/** Runs the calling thread (a worker) `steps` lower than it was created with: background work unless said otherwise. */
export function lowerThreadPriority(steps = BACKGROUND_NICENESS) {
  const self = currentThreadId();
  if (self !== undefined) lowerBy(self, steps, niceOf(self));
}

/**
 * Runs every other thread the process has now at background priority: V8's helper threads and libuv's pool.
 * Call it from the main thread first thing; threads created later are not touched (workers set their own).
 */
export function lowerHelperThreadsPriority() {
  const self = currentThreadId();
  if (self === undefined) return;
  // The main thread's niceness is what the process inherited; helpers count down from it, whatever they have now.
  const inherited = niceOf(self);
  if (inherited === undefined) return;
  let threads;
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    return;
  }
  for (const entry of threads) {
    const thread = Number(entry);
    if (thread !== self) lowerBy(thread, BACKGROUND_NICENESS, inherited);
  }
}

function currentThreadId() {
  try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(thread) && thread > 0 ? thread : undefined;
  } catch {
    return undefined;
  }
}

function niceOf(thread) {
  try {
    return getPriority(thread);
  } catch {
    return undefined;
  }
}

/** `from + steps`, within Linux's range, and never above (less nice than) the thread's own priority now. */
function lowerBy(thread, steps, from) {
  if (from === undefined) return;
  const now = niceOf(thread);
  if (now === undefined) return;
  const target = Math.min(LOWEST, from + steps);
  if (target <= now) return;
  try {
    setPriority(thread, target);
  } catch {
    // The thread ended meanwhile, or the platform refuses: it keeps its priority.
  }
}
