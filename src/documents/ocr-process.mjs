/**
 * Tesseract in a process of its own, one per document that needs OCR (ocr.ts forks it, detached, and ends it when
 * the document is read). Why a process and not the extraction worker's thread: Linux schedules by group (an
 * autogroup per session, or a cgroup), and niceness orders threads only inside their group. Recognising inside the
 * app's process spent the app's group's share of the CPU, so on a busy machine the event loop waited behind its own
 * background OCR, however low that thread's priority: measured with a niced busy thread, the event loop's run-queue
 * wait went from ~1 s to ~4.5 s per 10 s (load 11); the same busy loop in a detached process left it at ~1 s.
 * Detached means a session, and so an autogroup, of its own.
 *
 * Plain JavaScript, loaded by Node without tsx. Settings arrive as JSON in argv[2]: { languages, langPath }.
 * Messages in: { id, image } (PNG/JPEG bytes); out: { id: 0, ok } once the engine is up, then { id, ok, text,
 * confidence } or { id, ok: false, message } per image.
 */
import { lowerHelperThreadsPriority, lowerThreadPriority } from '../runtime/thread-priority.mjs';

// Background work, as in the extraction worker: below the app's threads wherever niceness still counts (a
// deployment that schedules by cgroup, where this process shares the app's group).
lowerHelperThreadsPriority();
lowerThreadPriority();

// The app closing the channel (document read, worker stopped, app killed) ends this process: nothing outlives it.
process.on('disconnect', () => process.exit(0));

const { languages, langPath } = JSON.parse(process.argv[2] ?? '{}');
const tesseract = await import('tesseract.js');
const { createWorker, OEM } = tesseract.default ?? tesseract;

let worker;
try {
  // No cache folder: nothing is written next to the process, and the data is read from the package each time.
  worker = await createWorker(languages.join('+'), OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none' });
  process.send?.({ id: 0, ok: true });
} catch (error) {
  process.send?.({ id: 0, ok: false, message: String(error?.message ?? error) });
  process.disconnect?.();
}

// One image at a time: the engine is busy with one page, and ocr.ts sends the next only once answered.
process.on('message', async ({ id, image }) => {
  try {
    const { data } = await worker.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
    process.send?.({ id, ok: true, text: data.text, confidence: data.confidence });
  } catch (error) {
    process.send?.({ id, ok: false, message: String(error?.message ?? error) });
  }
});
