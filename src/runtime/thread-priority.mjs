/**
 * Which work gets a CPU first when there are not enough of them. The receiver's thread acknowledges Slack (3
 * seconds, then Slack retries) and the event loop runs the answers; neither must wait behind background work.
 * With two busy extraction workers on a two-core machine, V8's helper threads (they garbage-collect and compile
 * for every isolate in the process, the workers' included) took about 0.9 of a core at normal priority, and in a
 * burst of 50 mentions the event loop waited for a CPU longer than it ran (bench: load.ack_p99_ms). So, by
 * niceness: the receiver and the event loop 0; the embedded database 5 (answers wait on it, acknowledgements do
 * not); reading documents and the helpers 10.
 *
 * Plain JavaScript so that every thread can load it, the database's included, which runs without tsx. Linux
 * applies setpriority() to the single thread whose id it is given; lowering a priority needs no privilege.
 * Elsewhere (no /proc) these do nothing, and every thread keeps the normal priority.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export const DATABASE_NICENESS = 5;
export const BACKGROUND_NICENESS = 10;

/** Runs the calling thread (a worker) at `niceness`: background work unless said otherwise. */
export function lowerThreadPriority(niceness = BACKGROUND_NICENESS) {
  const self = currentThreadId();
  if (self !== undefined) trySetPriority(self, niceness);
}

/**
 * Runs every other thread the process has now at background priority: V8's helper threads and libuv's pool.
 * Call it from the main thread first thing; threads created later are not touched (workers set their own).
 */
export function lowerHelperThreadsPriority() {
  const self = currentThreadId();
  if (self === undefined) return;
  let threads;
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    return;
  }
  for (const entry of threads) {
    const thread = Number(entry);
    if (thread !== self) trySetPriority(thread, BACKGROUND_NICENESS);
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

function trySetPriority(thread, niceness) {
  try {
    setPriority(thread, niceness);
  } catch {
    // The thread ended meanwhile, or the platform refuses: it keeps its priority.
  }
}
