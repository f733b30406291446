/**
 * The worker side: reads one file and answers with a TaskOutcome. Readers are imported on first use, so a worker
 * that only ever sees CSV files never loads pdf.js or jsdom.
 */
import { threadId } from 'node:worker_threads';
import type { ExtractedDocument } from '../types';
import { FileReadError } from '../types';
import type { DocumentKind } from './detect-kind';
import { corruptError, noTextError, unsupportedError } from './read-errors';
import type { ExtractLimits, ExtractTask, TaskOutcome } from './task';

type Reader = (bytes: Uint8Array, name: string, limits: ExtractLimits) => Promise<ExtractedDocument>;

const readers: Partial<Record<DocumentKind, () => Promise<Reader>>> = {
  pdf: async () => (await import('./pdf')).readPdf,
  docx: async () => (await import('./docx')).readDocx,
  pptx: async () => (await import('./pptx')).readPptx,
  xlsx: async () => (await import('./xlsx')).readXlsx,
  csv: async () => (await import('./csv')).readCsv,
  html: async () => (await import('./html')).readHtml,
  text: async () => (await import('./text')).readText,
};

export async function runTask(task: ExtractTask): Promise<TaskOutcome> {
  try {
    const document = await readDocument(task);
    return { ok: true, document, threadId };
  } catch (error) {
    const failure = error instanceof FileReadError ? error : corruptError(task.name, 'the reader failed on it', error);
    const cause = failure.cause ?? (error instanceof FileReadError ? undefined : error);
    const outcome: TaskOutcome = { ok: false, code: failure.code, message: failure.message };
    if (cause !== undefined) outcome.detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    return outcome;
  }
}

async function readDocument({ bytes, name, kind, limits }: ExtractTask): Promise<ExtractedDocument> {
  const loadReader = readers[kind];
  if (!loadReader) throw unsupportedError(name, kind === 'image' ? 'an image' : 'not a document type I know');
  const document = await (await loadReader())(bytes, name, limits);
  if (!/\S/.test(document.text)) throw noTextError(name);
  return document;
}
