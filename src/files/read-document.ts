/**
 * A Slack file's text: from the cache when it has been read before (no download, no parse), otherwise downloaded
 * once, extracted once, and cached with its content hash. Errors that belong to the bytes (corrupt, encrypted…)
 * are cached too; errors of the moment (timeouts, Slack being down) are not, so the next question tries again.
 * Concurrent reads of one file in this process share one piece of work.
 */
import { raceWithSignal } from '../core/abort';
import type { Logger } from '../logging/logger';
import type { Database } from '../store/database';
import { displayFileName } from '../core/thread-file';
import { describeFileError } from './describe-file-error';
import { downloadSlackFile } from './download';
import type { RetryPolicy } from './download-retry';
import { FileDownloadError } from './file-download-error';
import { findCachedRead, findDocument, isLastingError, linkSlackFile, saveDocument, type CachedRead } from './file-store';
import { resolveSlackFile } from './resolve-slack-file';
import type { SlackFileObject } from './slack-file';
import type { SlackApi } from './slack-file-info';
import { FileReadError, type ExtractedDocument, type ThreadFile } from '../core/thread-file';

/** The part of the extractor (files/extract) this module uses; tests pass a counting fake or the real one. */
export interface DocumentExtractorLike {
  extract(input: { bytes: Uint8Array; name: string; mimeType?: string; signal?: AbortSignal }): Promise<ExtractedDocument>;
}

export interface FileLimits {
  /** MAX_FILE_MB in bytes: larger files are refused, before download when Slack declares the size. */
  maxFileBytes: number;
  /** MAX_IMAGE_KB in bytes: the largest image (original or thumbnail) shown to the model. */
  maxImageBytes: number;
  downloadTimeoutMs?: number;
  retry?: RetryPolicy;
}

export interface DocumentReaderOptions {
  db: Database;
  slack: SlackApi;
  extractor: DocumentExtractorLike;
  limits: FileLimits;
  fetch?: typeof fetch;
  /** Slack objects already in hand (from the thread's messages); others are fetched with files.info. */
  slackFiles?: ReadonlyMap<string, SlackFileObject>;
  /** Called once after a file's first extraction, e.g. to index it for search. A failure is logged, not thrown. */
  onExtracted?: (contentHash: string, document: ExtractedDocument) => Promise<void>;
  logger?: Pick<Logger, 'warn'>;
}

export interface ReadDocument {
  (file: ThreadFile, signal?: AbortSignal): Promise<{ contentHash: string; document: ExtractedDocument }>;
}

// Per database, so two test databases (or two stores) in one process never share a result.
const inFlight = new WeakMap<Database, Map<string, Promise<{ contentHash: string; document: ExtractedDocument }>>>();

export function createDocumentReader(options: DocumentReaderOptions): ReadDocument {
  const { db } = options;
  let pending = inFlight.get(db);
  if (!pending) inFlight.set(db, (pending = new Map()));
  const shared = pending;

  return (file, signal) => {
    const slackFileId = file.slackFileId;
    if (!slackFileId) {
      return Promise.reject(new Error(`${file.id} (${file.name}) has no Slack file behind it; read its source file instead.`));
    }
    let work = shared.get(slackFileId);
    if (!work) {
      // The shared work runs without any one caller's signal: one reader giving up must not fail the others.
      work = readUncached(options, file, slackFileId).finally(() => shared.delete(slackFileId));
      shared.set(slackFileId, work);
    }
    return signal ? raceWithSignal(work, signal) : work;
  };
}

async function readUncached(options: DocumentReaderOptions, file: ThreadFile, slackFileId: string) {
  const { db } = options;
  const cached = await findCachedRead(db, slackFileId);
  if (cached) return fromCache(cached, file);

  const object = await resolveSlackFile(options, file, slackFileId);
  const url = object.url_private_download ?? object.url_private;
  if (!url) {
    throw new FileDownloadError(file.name, `Slack gave me no download address for ${displayFileName(file.name)}; share it here again.`);
  }
  const { bytes, contentHash } = await downloadSlackFile({
    url,
    file,
    botToken: options.slack.botToken,
    apiUrl: options.slack.apiUrl,
    maxBytes: options.limits.maxFileBytes,
    declaredSize: object.size ?? (file.sizeBytes || undefined),
    timeoutMs: options.limits.downloadTimeoutMs,
    retry: options.limits.retry,
    fetch: options.fetch,
  });
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
    document = await options.extractor.extract({ bytes, name: file.name, mimeType: file.mimeType });
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

function fromCache(cached: CachedRead, file: ThreadFile) {
  if (cached.ok) return { contentHash: cached.contentHash, document: cached.document };
  // The stored sentence may name the file as first shared; under another name, say it again with this one.
  const message = cached.message.includes(displayFileName(file.name)) ? cached.message : describeFileError(file, cached.code);
  throw new FileReadError(cached.code, message);
}
