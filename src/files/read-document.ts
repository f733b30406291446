/**
 * A file's text: from the cache when it has been read before (no download, no parse), otherwise read once from its
 * source (downloaded from Slack, or from the local disk for a terminal), extracted once, and cached with its content
 * hash. Errors that belong to the bytes (corrupt, encrypted…) are cached too; errors of the moment (timeouts, Slack
 * being down) are not, so the next question tries again. Concurrent reads of one file in this process share one
 * piece of work.
 */
import { raceWithSignal } from '../core/abort';
import type { Logger } from '../logging/logger';
import type { Database } from '../store/database';
import { displayFileName } from '../core/thread-file';
import { describeFileError } from './describe-file-error';
import type { FileSource } from './file-source';
import { findCachedRead, linkSlackFile } from './file-store';
import { findDocument, isLastingError, saveDocument, type CachedRead } from '../documents/document-store';
import { FileReadError, type ExtractedDocument, type ThreadFile } from '../core/thread-file';

/** The part of the extractor (documents) this module uses; tests pass a counting fake or the real one. */
export interface DocumentExtractorLike {
  /** `onFirstPages`: a long PDF's opening, told before the whole file is read (documents' ExtractInput). */
  extract(input: {
    bytes: Uint8Array;
    name: string;
    mimeType?: string;
    signal?: AbortSignal;
    onFirstPages?: (document: ExtractedDocument) => void;
  }): Promise<ExtractedDocument>;
  /** Whether it reads images (OCR); when not, an image has no text and is never sent to it. */
  readonly readsImages?: boolean;
  /** A picture a PDF's extraction listed ("page-3-image-1.png") as PNG bytes, made off the main thread. */
  readPdfPicture?(input: { bytes: Uint8Array; name: string; path: string; signal?: AbortSignal }): Promise<Uint8Array>;
}

export interface FileLimits {
  /** MAX_FILE_MB in bytes: larger files are refused, before download when the source declares the size. */
  maxFileBytes: number;
  /** MAX_IMAGE_KB in bytes: the largest image (original or thumbnail) shown to the model. */
  maxImageBytes: number;
}

export interface DocumentReaderOptions {
  db: Database;
  /** Where the bytes come from: Slack, or the local disk (file-source.ts). */
  source: FileSource;
  extractor: DocumentExtractorLike;
  limits: FileLimits;
  /** Called once after a file's first extraction, e.g. to index it for search. A failure is logged, not thrown. */
  onExtracted?: (contentHash: string, document: ExtractedDocument) => Promise<void>;
  logger?: Pick<Logger, 'warn'>;
}

export interface ReadDocument {
  (file: ThreadFile, signal?: AbortSignal): Promise<{ contentHash: string; document: ExtractedDocument }>;
  /**
   * The opening of a file being read: a long PDF's first pages as soon as they are read, else (another kind, or
   * the whole came first) the whole document. Starts the read like a call does, and shares it. Rejects as it does.
   */
  opening(file: ThreadFile): Promise<ExtractedDocument>;
}

interface Read {
  whole: Promise<{ contentHash: string; document: ExtractedDocument }>;
  /** Resolved with the first pages, or with the whole document when it comes first. */
  opening: Promise<ExtractedDocument>;
}

// Per database, so two test databases (or two stores) in one process never share a result.
const inFlight = new WeakMap<Database, Map<string, Read>>();

export function createDocumentReader(options: DocumentReaderOptions): ReadDocument {
  const { db } = options;
  let pending = inFlight.get(db);
  if (!pending) inFlight.set(db, (pending = new Map()));
  const shared = pending;

  const start = (file: ThreadFile): Read => {
    const slackFileId = file.slackFileId;
    if (!slackFileId) {
      const failed = Promise.reject(new Error(`${file.id} (${file.name}) has no stored file behind it; read its source file instead.`));
      failed.catch(() => {});
      return { whole: failed, opening: failed };
    }
    let read = shared.get(slackFileId);
    if (!read) {
      let tellOpening!: (document: ExtractedDocument) => void;
      const opening = new Promise<ExtractedDocument>((resolve) => (tellOpening = resolve));
      // The shared work runs without any one caller's signal: one reader giving up must not fail the others.
      const whole = readUncached(options, file, slackFileId, tellOpening).finally(() => shared.delete(slackFileId));
      read = { whole, opening: Promise.race([opening, whole.then((result) => result.document)]) };
      read.opening.catch(() => {});
      shared.set(slackFileId, read);
    }
    return read;
  };

  const readDocument = (file: ThreadFile, signal?: AbortSignal) => {
    const { whole } = start(file);
    return signal ? raceWithSignal(whole, signal) : whole;
  };
  return Object.assign(readDocument, { opening: (file: ThreadFile) => start(file).opening });
}

async function readUncached(
  options: DocumentReaderOptions,
  file: ThreadFile,
  slackFileId: string,
  onFirstPages: (document: ExtractedDocument) => void,
) {
  const { db } = options;
  const cached = await findCachedRead(db, slackFileId);
  if (cached) return fromCache(cached, file);

  // Without the caller's signal, like the shared work it is part of.
  const { bytes, contentHash } = await options.source.readBytes(file, slackFileId, { maxBytes: options.limits.maxFileBytes });
  // The same bytes shared again (another thread, a re-upload) were parsed already.
  const known = await findDocument(db, contentHash);
  if (known) {
    await linkSlackFile(db, slackFileId, contentHash, bytes.length);
    return fromCache(known, file);
  }

  // The extractor may move the bytes to its worker thread, leaving this buffer empty: measure it first.
  const sizeBytes = bytes.length;
  let document: ExtractedDocument;
  try {
    document = await options.extractor.extract({ bytes, name: file.name, mimeType: extractionMimeType(file), onFirstPages });
  } catch (error) {
    if (error instanceof FileReadError && isLastingError(error.code)) {
      await saveDocument(db, contentHash, { code: error.code, message: error.message });
      await linkSlackFile(db, slackFileId, contentHash, sizeBytes);
    }
    throw error;
  }
  await saveDocument(db, contentHash, { document });
  await linkSlackFile(db, slackFileId, contentHash, sizeBytes);
  if (options.onExtracted) {
    await options.onExtracted(contentHash, document).catch((error: unknown) => {
      options.logger?.warn('indexing an extracted file failed', { fileId: file.id, slackFileId, contentHash, error });
    });
  }
  return { contentHash, document };
}

/**
 * Slack's own documents (canvases, posts) download as HTML under names without an extension and MIME types of
 * Slack's own; their Slack file type says what they are.
 */
const SLACK_HTML_TYPES = new Set(['quip', 'canvas', 'post', 'space', 'docs']);

function extractionMimeType(file: ThreadFile): string {
  return SLACK_HTML_TYPES.has(file.fileType.toLowerCase()) ? 'text/html' : file.mimeType;
}

function fromCache(cached: CachedRead, file: ThreadFile) {
  if (cached.ok) return { contentHash: cached.contentHash, document: cached.document };
  // The stored sentence may name the file as first shared; under another name, say it again with this one.
  const message = cached.message.includes(displayFileName(file.name)) ? cached.message : describeFileError(file, cached.code);
  throw new FileReadError(cached.code, message);
}
