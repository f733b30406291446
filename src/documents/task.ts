/**
 * What crosses the thread boundary between the extractor (main thread) and run-task (worker). Errors are sent as
 * plain data because structured clone drops an Error's own fields, so a FileReadError's `code` would not survive.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ExtractedDocument, FileErrorCode } from '../core/thread-file';
import type { DocumentKind } from './detect-kind';
import type { OcrSettings } from './ocr';

export interface ExtractLimits {
  /** Rows kept per sheet (XLSX) or per file (CSV); the rest is counted in `notes`. */
  maxRowsPerSheet: number;
  /** Characters of table text kept across all sheets of one workbook or CSV. */
  maxTableChars: number;
  /** Sum of declared uncompressed sizes a DOCX/XLSX/PPTX may unpack to. */
  maxUnzippedBytes: number;
  /** Declared uncompressed ÷ compressed size above which a zip counts as a bomb. */
  maxZipRatio: number;
}

export const defaultLimits: ExtractLimits = {
  maxRowsPerSheet: 1_000,
  maxTableChars: 2_000_000,
  maxUnzippedBytes: 300 * 1024 * 1024,
  maxZipRatio: 200,
};

export interface ExtractTask {
  bytes: Uint8Array;
  name: string;
  kind: DocumentKind;
  limits: ExtractLimits;
  /** Scans and images of text: languages and the page cap (maxPages 0 = no OCR). */
  ocr: OcrSettings;
  /** Set for a PDF when one of its pictures ("page-3-image-1.png") is wanted as PNG, instead of its text. */
  picture?: string;
  /**
   * Where a PDF's first pages are posted (an ExtractedDocument of those pages, pageCount the whole file's) as soon
   * as they hold `firstPassChars` of text, while the rest is still being read.
   */
  firstPages?: MessagePort;
  firstPassChars?: number;
}

export type TaskOutcome = (
  | { ok: true; document: ExtractedDocument }
  | { ok: true; picture: Uint8Array }
  | { ok: false; code: FileErrorCode; message: string; detail?: string }
  /** Our side failed, not the file (the worker's modules did not load): an internal error, not a FileReadError. */
  | { ok: false; broken: string }
) & {
  /** Set when the worker's heap outgrew WorkerSettings.retireAboveHeapMb: its thread id, to be replaced. */
  retire?: number;
};

/** What each worker thread is started with (piscina's workerData). */
export interface WorkerSettings {
  /**
   * A worker whose committed heap is above this after a task asks to be replaced. V8 gives back little of what a
   * large file made it grow to, and a worker kept busy never idles out: a fresh thread starts small again.
   */
  retireAboveHeapMb: number;
}
