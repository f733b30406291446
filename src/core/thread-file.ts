/**
 * What the rest of the app knows about a file. The registry (files/registry.ts) hands these out; the context
 * builder lists them; the tools open them by `id`.
 */
import { ThreadwiseError } from './errors';

/** Why a file could not be read. Each code maps to one plain sentence for the thread (see describeFileError). */
export type FileErrorCode =
  | 'encrypted' // password-protected PDF, encrypted OOXML
  | 'no_text_layer' // scanned/image-only PDF
  | 'corrupt' // truncated or malformed
  | 'empty' // zero bytes, or no characters at all from a non-empty file
  | 'too_large' // over MAX_FILE_MB, or a zip bomb
  | 'unsupported' // a type we do not read
  | 'timeout' // extraction took longer than its limit
  | 'out_of_memory' // extraction hit the worker's memory limit
  | 'no_access' // Slack answered with its sign-in page: the bot cannot see the file
  | 'deleted' // the file is gone (tombstone)
  | 'external'; // a link to Google Drive, Dropbox…: not stored in Slack

export class FileReadError extends ThreadwiseError<FileErrorCode> {
  override readonly name = 'FileReadError';
  constructor(
    code: FileErrorCode,
    /** One human sentence naming the file and the reason, fit to post in the thread as it is. */
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** Thrown for a file id the thread does not hold; the sentence lists the ids that exist. */
export class UnknownFileError extends ThreadwiseError<'unknown_file'> {
  override readonly name = 'UnknownFileError';
  constructor(
    readonly fileId: string,
    readonly availableIds: string[],
  ) {
    super(
      'unknown_file',
      availableIds.length
        ? `There is no file "${fileId}" in this thread. The files here are: ${availableIds.join(', ')}.`
        : `There is no file "${fileId}" in this thread; the thread has no files.`,
      { context: { fileId } },
    );
  }
}

/** A place in the extracted text: a PDF page, a DOCX heading section, a sheet, a slide. */
export interface TextSegment {
  kind: 'page' | 'section' | 'sheet' | 'slide';
  /** 1-based page or slide number; sheet/section index otherwise. */
  number: number;
  /** What people call it: "p. 37", "Sheet 'Budget'", "slide 4", "§ Results". */
  label: string;
  /** Character offsets into ExtractedDocument.text, end exclusive. */
  start: number;
  end: number;
}

export interface OutlineEntry {
  /** Heading text, sheet name or slide title. */
  title: string;
  /** 1 = top level. */
  level: number;
  /** Character offset into the text. */
  offset: number;
}

/** A file inside another: an archive's entry, an email's attachment, a picture embedded in a DOCX. */
export interface ContainedFile {
  /** Where it sits in its container, "logs/app.log", "inner.zip/a.log", "report.pdf", "media/image1.png". */
  path: string;
  sizeBytes: number;
  mimeType: string;
}

export interface ExtractedDocument {
  /** Plain text or markdown (tables as markdown tables). Never empty: an empty result is a FileReadError. */
  text: string;
  /** Files inside this one, each opened by the tools as a virtual file "F3/logs/app.log". */
  entries?: ContainedFile[];
  /** Pages (PDF), slides (PPTX) or sheets (XLSX) where the format has them. */
  pageCount?: number;
  outline: OutlineEntry[];
  segments: TextSegment[];
  /** What was left out or degraded, in words: "rows capped: 9,000 of 10,000 rows of 'Data' left out". */
  notes: string[];
}

/** One file as the thread knows it. Stable for the life of the thread. */
export interface ThreadFile {
  /** Short, stable, thread-scoped id the model uses: "F1", "F2"… ; virtual (extracted) files: "F1.txt". */
  id: string;
  name: string;
  /** MIME type as Slack reports it (or text/plain for virtual files). */
  mimeType: string;
  /** Slack's short type ("pdf", "docx", "png"…). */
  fileType: string;
  sizeBytes: number;
  /** Pages, slides or sheets, once known. */
  pageCount?: number;
  /** The message the file came with, and its author's display name. */
  messageTs: string;
  authorName?: string;
  /** Slack's file id (F0123…); absent for virtual files. */
  slackFileId?: string;
  /** For virtual files: the id of the file they were made from. */
  sourceId?: string;
  /** Set when the file is known to be unreadable. */
  error?: { code: FileErrorCode; message: string };
  /** Some or all of its text was recognised from images (a scan, a photo of text). */
  scanned?: boolean;
  /** The language its text is written in ("German", "Chinese") or, for code, the programming language. */
  language?: string;
  /** Its extraction is still running as the request is built; about how long until it is ready. */
  pending?: { readyInSeconds: number };
}

/**
 * Notes of a document whose text (some pages of it, at least) came from OCR start with this. A note rather than a
 * field of its own, so the cache stores it with the other notes and the model reads it beside them.
 */
export const OCR_NOTE_PREFIX = 'scanned, OCR:';

export function isScannedDocument(document: Pick<ExtractedDocument, 'notes'>): boolean {
  return document.notes.some((note) => note.startsWith(OCR_NOTE_PREFIX));
}

/** Notes of a document name its language ("language: German", "language: TypeScript") with this. */
export const LANGUAGE_NOTE_PREFIX = 'language: ';

/** The language a document's notes name, if any. */
export function documentLanguage(document: Pick<ExtractedDocument, 'notes'>): string | undefined {
  return document.notes.find((note) => note.startsWith(LANGUAGE_NOTE_PREFIX))?.slice(LANGUAGE_NOTE_PREFIX.length);
}

/**
 * A file name as it may appear in a sentence: control characters and line breaks (which could fake a new line of
 * the message) become spaces, and a very long name is shortened. Escaping for Slack markup is the poster's job.
 */
export function displayFileName(name: string): string {
  const flat = name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  const short = flat.length > 120 ? `${flat.slice(0, 117)}…` : flat;
  return short || 'an unnamed file';
}
