/**
 * The worker side: reads one file and answers with a TaskOutcome. Every reader is imported statically here: our
 * TypeScript can only load while worker-entry.mjs has tsx registered, which is only during this module's import.
 * The heavy libraries behind the readers load on first use instead (libraries.ts, pdf-engine.ts).
 */
import type { ExtractedDocument } from '../core/thread-file';
import { documentLanguage, FileReadError, LANGUAGE_NOTE_PREFIX } from '../core/thread-file';
import { describeDocumentLanguage } from '../text/language';
import { readEml, readMsg, readZip } from './containers';
import { readCsv } from './csv';
import type { DocumentKind } from './detect-kind';
import { readDocx } from './docx';
import { readHtml } from './html';
import { readImage } from './image';
import { readDoc, readPpt, readXls } from './legacy-office';
import type { OcrSettings } from './ocr';
import { readPdf, readPdfPicture, type FirstPagesRequest } from './pdf';
import { loadPdfium } from './pdfium';
import { readPptx } from './pptx';
import { corruptError, noTextError, unsupportedError } from './read-errors';
import type { ExtractLimits, ExtractTask, TaskOutcome } from './task';
import { readText } from './text';
import { readXlsx } from './xlsx';

/**
 * Called by worker-entry.mjs once this module has loaded (tsx is off again, so PDFium's glue loads natively): a new
 * worker (the pool's first, or one replacing a retired worker) compiles PDFium while it is handed its first file,
 * rather than once that file turns out to be a PDF. Most files are, and the first pages of a long PDF posted with
 * a question waited 0.3–0.8 s for the compile. A failure is the first PDF's to report.
 */
export function warmUp(): void {
  loadPdfium().catch(() => {});
}

type Reader = (
  bytes: Uint8Array,
  name: string,
  limits: ExtractLimits,
  ocr: OcrSettings,
  firstPages?: FirstPagesRequest,
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

async function readDocument({ bytes, name, kind, limits, ocr, firstPages, firstPassChars }: ExtractTask): Promise<ExtractedDocument> {
  const read = readers[kind];
  if (!read) throw unsupportedError(name, 'not a document type I know');
  try {
    const tell = (opening: ExtractedDocument) => firstPages!.postMessage(withLanguageNote(opening));
    const document = await read(bytes, name, limits, ocr, firstPages && { chars: firstPassChars ?? 0, tell });
    if (!/\S/.test(document.text)) throw noTextError(name);
    return withLanguageNote(document);
  } finally {
    firstPages?.close();
  }
}

/**
 * Adds "language: German" to a document whose notes do not name a language yet (code files name theirs). Here, not
 * on the main thread: on a 117-page PDF it took 14–76 ms of the event loop (twice: first pages, then the whole).
 */
function withLanguageNote(document: ExtractedDocument): ExtractedDocument {
  if (documentLanguage(document)) return document;
  const language = describeDocumentLanguage(document.text);
  return language ? { ...document, notes: [...document.notes, `${LANGUAGE_NOTE_PREFIX}${language}`] } : document;
}
