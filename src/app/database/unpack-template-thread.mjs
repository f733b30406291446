/** A thread that unpacks the database template (unpack-template.mjs) while the main thread loads the app. */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../../runtime/thread-priority.mjs';
import { unpackTemplate } from './unpack-template.mjs';

// Start-up work the event loop does not wait for yet: it yields to the thread that loads the app.
lowerThreadPriority();

try {
  await unpackTemplate(workerData.templateFile, workerData.staging);
  parentPort.postMessage({ ok: true });
} catch (error) {
  parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
