/** A thread that unpacks the database template (unpack-template.mjs) while the main thread loads the app. */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../../runtime/thread-priority.mjs';
import { unpackTemplate } from './unpack-template.mjs';

// Start-up work the event loop does not wait for yet: it yields to the thread that loads the app.
lowerThreadPriority();

// workerData.signals (shared with early-pglite.ts): [STOP] set by a process exiting, [DONE] set here once nothing
// more will be written, whether the folder is complete or removed.
const signals = new Int32Array(workerData.signals);
const [STOP, DONE] = [0, 1];

try {
  await unpackTemplate(workerData.templateFile, workerData.staging, () => Atomics.load(signals, STOP) === 1);
  parentPort.postMessage({ ok: true });
} catch (error) {
  parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
} finally {
  Atomics.store(signals, DONE, 1);
  Atomics.notify(signals, DONE);
}
