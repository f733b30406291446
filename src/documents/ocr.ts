/**
 * Text from images with tesseract.js (Tesseract's WASM build). The extraction worker that reads the file prepares
 * the images; Tesseract itself runs in a detached process of its own (ocr-process.mjs says why: the event loop
 * stopped waiting behind it). The engine is started per document and stopped after it: a start costs about a
 * second against several seconds per page, and a stopped engine gives its WASM memory (which grows with the largest
 * page seen) back at once, which keeps two workers recognising at the same time inside the memory target.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { OCR_NOTE_PREFIX } from '../core/thread-file';
import { ThreadwiseError } from '../core/errors';
import { drawOnWhite } from './draw-on-white';
import { loadCanvas } from './libraries';
import { languageFolderFor } from './ocr-languages';

export interface OcrSettings {
  /** Tesseract codes, e.g. ["eng", "chi_sim"]; only those with data installed (checked on the main thread). */
  languages: string[];
  /** Pages recognised per document at most; 0 = OCR off. */
  maxPages: number;
  /**
   * Shared by every worker of one pool (a SharedArrayBuffer's Int32Array): 0 when no engine runs, else the task id
   * of the one that does. One engine at a time keeps the pool's peak memory to one Tesseract (~350 MB at its
   * largest page); the main thread frees the gate of a task whose worker was stopped while holding it.
   */
  gate?: Int32Array;
  /** This task's id for the gate (never 0). */
  taskId?: number;
}

export const ocrOff: OcrSettings = { languages: [], maxPages: 0 };

export interface RecognisedText {
  text: string;
  /** Tesseract's mean word confidence, 0–100. */
  confidence: number;
}

export interface OcrEngine {
  recognise(image: Uint8Array): Promise<RecognisedText>;
  close(): Promise<void>;
}

/** Formats Tesseract (Leptonica) decodes itself; anything else is re-encoded as PNG first. */
function isPngOrJpeg(bytes: Uint8Array): boolean {
  return (bytes[0] === 0x89 && bytes[1] === 0x50) || (bytes[0] === 0xff && bytes[1] === 0xd8);
}

/** Longest side an image is recognised at: ~300 dpi for a letter page. Larger images are scaled down first. */
const MAX_SIDE_PX = 3300;

const ocrProcessEntry = new URL('./ocr-process.mjs', import.meta.url);

/** The OCR process failed to start, died, or could not recognise an image. */
class OcrEngineError extends ThreadwiseError<'ocr_engine_failed'> {
  constructor(message: string, options?: { cause?: unknown; context?: Record<string, unknown> }) {
    super('ocr_engine_failed', message, options);
  }
}

type OcrReply = { id: number; ok: true; text?: string; confidence?: number } | { id: number; ok: false; message: string };

export async function startOcrEngine(settings: OcrSettings): Promise<OcrEngine> {
  const releaseGate = await acquireGate(settings);
  let engine: OcrProcess;
  try {
    engine = await startOcrProcess(settings.languages);
  } catch (error) {
    releaseGate();
    throw error;
  }
  return {
    async recognise(image) {
      const input = await normaliseImage(image);
      const { text, confidence } = await engine.recognise(input);
      return { text: tidyOcrText(text), confidence: Math.round(confidence) };
    },
    close: async () => {
      // The next engine may start only once this one's memory is given back: one Tesseract at a time, as the gate says.
      await engine.stop();
      releaseGate();
    },
  };
}

interface OcrProcess {
  recognise(image: Uint8Array): Promise<{ text: string; confidence: number }>;
  /** Ends the process; resolves once it has exited (killed outright if it has not within STOP_GRACE_MS). */
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 2_000;

/** Forks ocr-process.mjs for `languages` and resolves once its engine is up. */
async function startOcrProcess(languages: string[]): Promise<OcrProcess> {
  const child: ChildProcess = fork(ocrProcessEntry, [JSON.stringify({ languages, langPath: languageFolderFor(languages) })], {
    // A session of its own, and with it a scheduling group of its own (ocr-process.mjs).
    detached: true,
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    // Plain JavaScript: neither the app's flags (heap sizes, tsx) nor vitest's are this process's business.
    execArgv: [],
  });
  const waiting = new Map<number, { resolve: (reply: OcrReply) => void; reject: (error: Error) => void }>();
  let ended: Error | undefined;
  const endAll = (error: Error) => {
    ended ??= error;
    for (const call of waiting.values()) call.reject(error);
    waiting.clear();
  };
  child.on('message', (reply: OcrReply) => {
    const call = waiting.get(reply.id);
    waiting.delete(reply.id);
    call?.resolve(reply);
  });
  child.on('error', (error) => endAll(new OcrEngineError(`The OCR process failed: ${error.message}`, { cause: error })));
  child.on('exit', (code, signal) => endAll(new OcrEngineError(`The OCR process ended (${signal ?? `code ${code}`}).`, { context: { code, signal } })));
  const ask = (id: number, message?: { id: number; image: Uint8Array }) =>
    new Promise<OcrReply>((resolve, reject) => {
      if (ended) return reject(ended);
      waiting.set(id, { resolve, reject });
      if (message) child.send(message);
    });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.connected) child.disconnect();
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill();
    const grace = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(grace);
  };
  const started = await ask(0).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  if (!started.ok) {
    await stop();
    throw new OcrEngineError(`The OCR engine did not start: ${started.message}`, { context: { languages } });
  }
  let next = 1;
  return {
    async recognise(image) {
      const reply = await ask(next, { id: next++, image });
      if (!reply.ok) throw new OcrEngineError(`The OCR engine could not read an image: ${reply.message}`);
      return { text: reply.text ?? '', confidence: reply.confidence ?? 0 };
    },
    stop,
  };
}

/** Atomics.waitAsync (Node 16+), missing from this TypeScript lib. */
interface AtomicsWithWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: boolean; value: Promise<string> | string };
}

async function acquireGate({ gate, taskId }: OcrSettings): Promise<() => void> {
  if (!gate || !taskId) return () => {};
  for (;;) {
    const holder = Atomics.compareExchange(gate, 0, 0, taskId);
    if (holder === 0) break;
    // Woken by the holder's release; the one-second timeout re-checks in case a release was missed.
    const waited = (Atomics as unknown as AtomicsWithWaitAsync).waitAsync(gate, 0, holder, 1_000);
    if (waited.async) await waited.value;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    Atomics.compareExchange(gate, 0, taskId, 0);
    Atomics.notify(gate, 0);
  };
}

/** PNG/JPEG within the size cap pass through; other formats (WebP, GIF…) and huge images go through a canvas. */
async function normaliseImage(image: Uint8Array): Promise<Uint8Array> {
  const { loadImage, createCanvas } = await loadCanvas();
  const decoded = await loadImage(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
  const scale = Math.min(1, MAX_SIDE_PX / Math.max(decoded.width, decoded.height));
  if (scale === 1 && isPngOrJpeg(image)) return image;
  const width = Math.max(1, Math.round(decoded.width * scale));
  const height = Math.max(1, Math.round(decoded.height * scale));
  return drawOnWhite(createCanvas, decoded, width, height).encode('png');
}

/** Tesseract's lines as they are, minus trailing spaces and runs of blank lines. */
function tidyOcrText(text: string): string {
  return text.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** `pages` names the PDF pages recognised ("pp. 1–6"); without it, the file is one image. */
export function ocrNote(pages: string | undefined, languages: string[], confidence: number): string {
  const what = pages ? `the text of ${pages} was recognised from the page images` : 'the text was recognised from the image';
  return `${OCR_NOTE_PREFIX} ${what} (${languages.join('+')}), mean confidence ${confidence}%; expect misread characters`;
}
