/**
 * The main-thread side of extraction: a piscina pool of worker threads, so a 100-page PDF never stalls Slack acks,
 * a runaway file is stopped by terminating its worker, and a worker that runs out of memory or crashes takes only
 * its own file down with it.
 */
import { availableParallelism, totalmem } from 'node:os';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ExtractedDocument } from '../core/thread-file';
import { FileReadError } from '../core/thread-file';
import { detectDocumentKind } from './detect-kind';
import { ocrOff, type OcrSettings } from './ocr';
import { checkOcrLanguages } from './ocr-languages';
import { emptyFileError, outOfMemoryError, timeoutError, unsupportedError } from './read-errors';
import { createSlots } from '../core/slots';
import { defaultLimits, type ExtractLimits, type ExtractTask, type TaskOutcome, type WorkerSettings } from './task';
import { codeOf } from '../core/errors';

export interface ExtractInput {
  /**
   * The file's bytes. When they own their whole ArrayBuffer they are moved to the worker, not copied, and the
   * caller's array is left empty (detached): hash or cache them before calling, or pass a copy.
   */
  bytes: Uint8Array;
  name: string;
  mimeType?: string;
  signal?: AbortSignal;
  /**
   * Told once with a PDF's first pages (their text, the whole file's page count) as soon as a worker has read them,
   * before the whole file is: the first question about a long PDF needs its opening (ExtractorOptions.firstPassChars).
   * Always told (before extract resolves) for a PDF whose first pass ended before its last page; not for other kinds.
   */
  onFirstPages?: (document: ExtractedDocument) => void;
}

export interface PdfPictureInput {
  /** The PDF's bytes (moved to the worker like ExtractInput's). */
  bytes: Uint8Array;
  /** The PDF's name, for messages. */
  name: string;
  /** The picture's path in the PDF's entries. */
  path: string;
  signal?: AbortSignal;
}

export interface DocumentExtractor {
  /** Resolves with the document, or rejects with a FileReadError whose message can be posted to the thread. */
  extract(input: ExtractInput): Promise<ExtractedDocument>;
  /**
   * One of the pictures a PDF's extraction listed ("page-3-image-1.png") as PNG bytes, made in a worker. Rejects
   * with a FileReadError when the PDF has no such picture.
   */
  readPdfPicture(input: PdfPictureInput): Promise<Uint8Array>;
  /** Whether images are read (by OCR); when not, an image has no text and nothing is sent to a worker. */
  readonly readsImages: boolean;
  /** Stops the workers; extractions still running or waiting are rejected. */
  close(): Promise<void>;
  /** The pool as the console's Health page shows it. */
  stats(): ExtractorStats;
}

interface ExtractorStats {
  /** Worker threads alive now (idle ones exit after a while). */
  workers: number;
  maxWorkers: number;
  /** Files waiting for a worker. */
  queued: number;
  /** Files read since start. */
  completed: number;
  /** Workers replaced because their heap outgrew retireAboveHeapMb. */
  retired: number;
}

export interface ExtractorOptions extends Partial<ExtractLimits> {
  /** Files read at once, one worker thread each. Default: sized from the machine (defaultExtractionThreads). */
  maxThreads?: number;
  /** Per file, counted from when a worker takes it up (not while it waits its turn). Default 60 s. */
  timeoutMs?: number;
  /** Old-generation heap per worker; past it the worker dies and the file fails with out_of_memory. Default 512. */
  maxMemoryMb?: number;
  /** Idle workers exit after this, so the memory pdf.js held goes back to the system. Default 10 s. */
  idleTimeoutMs?: number;
  /**
   * A busy worker never idles out: one whose heap has grown past this by the end of a file is replaced before the
   * next file (a new thread costs a few hundred ms of CPU; a worker that read a large PDF held 150–220 MB). Default 128.
   */
  retireAboveHeapMb?: number;
  /**
   * OCR for scans and images of text (OCR_LANGUAGES, OCR_MAX_PAGES). Languages without an installed data package
   * are left out (the start-up check says so). Default: off.
   */
  ocr?: OcrSettings;
  /** Extra time a file may take per page it OCRs, on top of timeoutMs. Default 30 s. */
  ocrTimeoutPerPageMs?: number;
  /**
   * Text a PDF's first pages must hold before they are told (onFirstPages): what the first question's preload
   * takes of the file, with room for page markers and the cut at a line end (the app passes 2 × PRELOAD_KB). More
   * is read late: 64 K characters were 58 of a textbook's 117 pages (~450 ms), 16 K are 14. Default 16 K.
   */
  firstPassChars?: number;
}

const workerEntry = new URL('./worker-entry.mjs', import.meta.url).href;

export function createDocumentExtractor(options: ExtractorOptions = {}): DocumentExtractor {
  const { maxThreads = defaultExtractionThreads(), timeoutMs = 60_000, maxMemoryMb = 512, idleTimeoutMs = 10_000, retireAboveHeapMb = 128, firstPassChars = 16 * 1024 } = options;
  const limits: ExtractLimits = { ...defaultLimits, ...pickLimits(options) };
  const ocr = usableOcr(options.ocr);
  // One OCR engine at a time across the pool (see OcrSettings.gate).
  const ocrGate = new Int32Array(new SharedArrayBuffer(4));
  let nextTaskId = 0;
  // A scan's pages take seconds each: its time limit grows with the pages it may OCR.
  const ocrTimeoutMs = ocr.maxPages * (options.ocrTimeoutPerPageMs ?? 30_000);
  const pool = new Piscina<ExtractTask, TaskOutcome>({
    filename: workerEntry,
    minThreads: 0,
    maxThreads,
    idleTimeout: idleTimeoutMs,
    // A small young generation: V8's default (48 MB at this heap size) is committed in full by pdf.js's garbage.
    // 24 MB took peak RSS of a two-worker burst over the corpus from 540–570 MB to 480–520 MB; 8 MB took the bench
    // load's peak (app, database, one extraction worker) from ~705 to ~650 MB. Scavenges come more often; the
    // extract bench's timings are the check that they stay cheap.
    resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb, maxYoungGenerationSizeMb: 8 },
    // The entry registers tsx itself; inheriting the parent's flags would load tsx twice (npm start) or carry
    // test-runner flags into the worker (vitest).
    execArgv: [],
    workerData: { retireAboveHeapMb } satisfies WorkerSettings,
  });
  // Piscina emits 'error' for a worker that dies with no task on it; unheard, that event would end the process.
  pool.on('error', () => {});
  // Our own queue, so a file's timeout starts when a worker is free for it rather than when it was submitted.
  const slots = createSlots(maxThreads);
  let closed = false;
  let retired = 0;

  /** Ends a worker that asked to be replaced; piscina starts a new one for the next file. */
  async function retireWorker(threadId: number): Promise<void> {
    const worker = pool.threads.find((thread) => thread.threadId === threadId);
    if (!worker) return;
    retired += 1;
    await worker.terminate().catch(() => {});
  }

  async function extract({ bytes, name, mimeType, signal, onFirstPages }: ExtractInput): Promise<ExtractedDocument> {
    const kind = detectDocumentKind(bytes, name, mimeType);
    if (bytes.length === 0) throw emptyFileError(name);
    if (kind === 'image' && ocr.maxPages === 0) throw unsupportedError(name, 'an image');
    if (kind === 'unsupported') throw unsupportedError(name, 'not a document type I know');
    const channel = onFirstPages && kind === 'pdf' ? new MessageChannel() : undefined;
    let told = false;
    const tell = (opening: ExtractedDocument) => {
      if (told) return;
      told = true;
      onFirstPages!(opening);
    };
    channel?.port1.on('message', tell);
    try {
      const outcome = await runInPool({ bytes, name, kind, limits, ocr, ...(channel && { firstPages: channel.port2, firstPassChars }) }, signal);
      // Two ports, no order between them: first pages the worker posted before it answered may still be queued.
      // Told now, so a PDF read in two passes always tells its opening before the whole is returned.
      const queued = channel && receiveMessageOnPort(channel.port1);
      if (queued) tell(queued.message as ExtractedDocument);
      if ('document' in outcome) return outcome.document;
      throw new Error(`The extraction worker answered ${name} with a picture, not its text.`);
    } finally {
      channel?.port1.close();
    }
  }

  async function readPdfPicture({ bytes, name, path, signal }: PdfPictureInput): Promise<Uint8Array> {
    if (bytes.length === 0) throw emptyFileError(name);
    // No OCR and no OCR time: a picture is decoded, never recognised.
    const outcome = await runInPool({ bytes, name, kind: 'pdf', limits, ocr: ocrOff, picture: path }, signal);
    if ('picture' in outcome) return outcome.picture;
    throw new Error(`The extraction worker answered ${name}/${path} with text, not a picture.`);
  }

  /** One task on a worker, with its time limit and the failure vocabulary; resolves only with a successful outcome. */
  async function runInPool(task: ExtractTask, signal: AbortSignal | undefined): Promise<Extract<TaskOutcome, { ok: true }>> {
    const { name, kind, bytes } = task;
    const release = await slots.acquire(signal);
    const timeout = new AbortController();
    const reads = task.picture === undefined && task.ocr.maxPages > 0 && (kind === 'pdf' || kind === 'image');
    const limitMs = timeoutMs + (reads ? ocrTimeoutMs : 0);
    const timer = setTimeout(() => timeout.abort(), limitMs);
    let outcome: TaskOutcome;
    const taskId = (nextTaskId = (nextTaskId % 0x7fffffff) + 1);
    try {
      outcome = await pool.run(
        task.ocr.maxPages > 0 ? { ...task, ocr: { ...task.ocr, gate: ocrGate, taskId } } : task,
        {
          signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
          transferList: [...(ownsWholeBuffer(bytes) ? [bytes.buffer as ArrayBuffer] : []), ...(task.firstPages ? [task.firstPages] : [])],
        },
      );
    } catch (error) {
      release();
      // A worker stopped while its engine ran (timeout, abort, crash) never released the gate: free it here.
      if (Atomics.compareExchange(ocrGate, 0, taskId, 0) === taskId) Atomics.notify(ocrGate, 0);
      if (signal?.aborted) throw signal.reason;
      if (closed) throw new Error(`The document extractor was closed while it was reading ${name}.`, { cause: error });
      if (timeout.signal.aborted) throw timeoutError(name, limitMs);
      if (isOutOfMemory(error)) throw outOfMemoryError(name, maxMemoryMb);
      // The worker died under this file (a parser bug or abort on malformed input); the pool replaces it.
      throw new FileReadError('corrupt', `Reading ${name} crashed the document reader, so I can't read it.`, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
    // Before the slot is released: no other file can have been handed to this worker yet.
    if (outcome.retire !== undefined) await retireWorker(outcome.retire);
    release();
    if (outcome.ok) return outcome;
    if ('broken' in outcome) throw new Error(`The extraction worker could not read ${name}: ${outcome.broken}`);
    const cause = outcome.detail === undefined ? undefined : new Error(outcome.detail);
    throw new FileReadError(outcome.code, outcome.message, { cause });
  }

  return {
    extract,
    readPdfPicture,
    readsImages: ocr.maxPages > 0,
    stats: () => ({ workers: pool.threads.length, maxWorkers: maxThreads, queued: slots.waiting() + pool.queueSize, completed: pool.completed, retired }),
    async close() {
      closed = true;
      slots.close(new Error('The document extractor was closed while this file waited for a worker.'));
      await pool.destroy();
    },
  };
}

/**
 * Worker threads for extraction on this machine: one per two cores (the event loop, the receiver and the embedded
 * database need the other), at most two, and one per 2 GB of memory the process may use (a worker
 * reading a large PDF holds 150–300 MB until it idles out). On a 2-core machine one worker: the bench's peak RSS
 * fell by ~150 MB, and the event loop no longer competes with two busy workers for two cores.
 */
function defaultExtractionThreads(): number {
  const cores = availableParallelism();
  const limit = process.constrainedMemory?.() || 0;
  const memory = limit > 0 ? Math.min(limit, totalmem()) : totalmem();
  return Math.max(1, Math.min(2, Math.floor(cores / 2), Math.floor(memory / 2 ** 31)));
}

function ownsWholeBuffer(bytes: Uint8Array): boolean {
  return (
    bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  );
}

function isOutOfMemory(error: unknown): boolean {
  return codeOf(error) === 'ERR_WORKER_OUT_OF_MEMORY';
}

function usableOcr(settings: OcrSettings | undefined): OcrSettings {
  if (!settings || settings.maxPages <= 0) return ocrOff;
  const { available } = checkOcrLanguages(settings.languages);
  return available.length ? { languages: available, maxPages: settings.maxPages } : ocrOff;
}

function pickLimits(options: ExtractorOptions): Partial<ExtractLimits> {
  const picked: Partial<ExtractLimits> = {};
  for (const key of Object.keys(defaultLimits) as Array<keyof ExtractLimits>) {
    if (options[key] !== undefined) picked[key] = options[key];
  }
  return picked;
}
