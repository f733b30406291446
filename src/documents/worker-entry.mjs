/**
 * The file piscina loads in each worker thread. Worker threads do not inherit tsx's loader from the parent (and
 * under vitest there is no tsx in the parent at all), so this plain-JS entry registers tsx itself to load our
 * TypeScript, then unregisters it: through tsx, pdf.js (4 MB of .mjs) took seconds to load, and the source maps
 * tsx switches on slowed parsing too. So run-task.ts must import every TypeScript module it will ever need
 * statically; the parsing libraries load natively afterwards.
 */
import { getHeapStatistics } from 'node:v8';
import { threadId, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';
import { lowerThreadPriority } from '../runtime/thread-priority.mjs';

// Reading documents is background work: the thread drops to background priority before it loads the parsers.
lowerThreadPriority();

const unregister = register();

// Start loading at once so the first task does not pay for it; a failure is reported by the first task.
const loading = import('./run-task.ts').finally(() => unregister());
loading.then(({ warmUp }) => warmUp(), () => {});

/** WorkerSettings (task.ts). */
const retireAboveBytes = (workerData?.retireAboveHeapMb ?? Infinity) * 1024 * 1024;

export default async function runInWorker(task) {
  let runTask;
  try {
    ({ runTask } = await loading);
  } catch (error) {
    return { ok: false, broken: `its modules failed to load (${error?.message ?? error})` };
  }
  const outcome = await runTask(task);
  // The thread cannot end itself safely (piscina may hand it the next file meanwhile): the extractor ends it.
  return getHeapStatistics().total_physical_size > retireAboveBytes ? { ...outcome, retire: threadId } : outcome;
}

