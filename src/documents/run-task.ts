/**
 * The worker side: reads one file and answers with a TaskOutcome. Every reader is imported statically here: our
 * TypeScript can only load while worker-entry.mjs has tsx registered, which is only during this module's import.
 * The heavy libraries behind the readers load on first use instead (libraries.ts, pdf-engine.ts).
 */
import type { ExtractedDocument } from '../core/thread-file';
import { FileReadError } from '../core/thread-file';
import { readEml, readMsg, readZip } from './containers';
import { readCsv } from './csv';
import type { DocumentKind } from './detect-kind';
import { readDocx } from './docx';
import { readHtml } from './html';
import { readImage } from './image';
import { readDoc, readPpt, readXls } from './legacy-office';
import type { OcrSettings } from './ocr';
import { readPdf, readPdfPicture } from './pdf';
import { readPptx } from './pptx';
import { corruptError, noTextError, unsupportedError } from './read-errors';
import type { ExtractLimits, ExtractTask, TaskOutcome } from './task';
import { readText } from './text';
import { readXlsx } from './xlsx';

type Reader = (
  bytes: Uint8Array,
  name: string,
  limits: ExtractLimits,
  ocr: OcrSettings,
  firstPages?: (document: ExtractedDocument) => void,
) => Promise<ExtractedDocument>;

const readers: Partial<Record<DocumentKind, Reader>> = {
  pdf: (bytes, name, _limits, ocr, firstPages) => readPdf(bytes, name, ocr, firstPages),
  image: (bytes, name, _limits, ocr) => readImage(bytes, name, ocr),
  docx: readDocx,
  pptx: readPptx,
  xlsx: readXlsx,
  doc: readDoc,
  xls: readXls,
  ppt: readPpt,
  zip: readZip,
  eml: readEml,
  msg: readMsg,
  csv: readCsv,
  html: readHtml,
  text: readText,
};

export async function runTask(task: ExtractTask): Promise<TaskOutcome> {
  try {
    if (task.picture !== undefined) {
      if (task.kind !== 'pdf') throw unsupportedError(task.name, 'only a PDF has pictures I take out this way');
      return { ok: true, picture: await readPdfPicture(task.bytes, task.name, task.picture) };
    }
    const document = await readDocument(task);
    return { ok: true, document };
  } catch (error) {
    // Anything a parser throws that we did not classify means it could not make sense of the file.
    const failure = error instanceof FileReadError ? error : corruptError(task.name, 'the reader failed on it', error);
    const { code, message, cause } = failure;
    if (cause === undefined) return { ok: false, code, message };
    return { ok: false, code, message, detail: cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause) };
  }
}

async function readDocument({ bytes, name, kind, limits, ocr, firstPages }: ExtractTask): Promise<ExtractedDocument> {
  const read = readers[kind];
  if (!read) throw unsupportedError(name, 'not a document type I know');
  try {
    const document = await read(bytes, name, limits, ocr, firstPages && ((opening) => firstPages.postMessage(opening)));
    if (!/\S/.test(document.text)) throw noTextError(name);
    return document;
  } finally {
    firstPages?.close();
  }
}
