/**
 * Extraction ahead of time: when files land in a thread the bot is in, read them before anyone asks, so the first
 * question finds them cached. Callers fire and forget; failures are logged here and never reach the thread — the
 * cached error (or a fresh try) answers when someone does ask.
 */
import type { Logger } from '../logging/logger';
import type { ThreadFileAccess } from './thread-file-access';
import { isImageFile } from '../core/file-kinds';
import { isContainedFile } from './contained-file-key';
import { mapConcurrently } from '../core/map-concurrently';
import { FileReadError, type ThreadFile } from '../core/thread-file';
import { messageOf } from '../core/errors';

export interface PrefetchOptions {
  /** Files read at once. Default 2, the extractor's default worker count: more would only queue. */
  concurrency?: number;
  logger?: Pick<Logger, 'info' | 'warn'>;
  signal?: AbortSignal;
}

export interface PrefetchResult {
  /** Ids read (or found cached). */
  read: string[];
  /** Ids that could not be read, with the reason. */
  failed: Array<{ id: string; reason: string }>;
}

export async function prefetchThreadFiles(
  access: ThreadFileAccess,
  files: ThreadFile[],
  options: PrefetchOptions = {},
): Promise<PrefetchResult> {
  const result: PrefetchResult = { read: [], failed: [] };
  // Files inside archives and emails are read when opened: an archive of a thousand logs is not a thousand reads.
  const wanted = files.filter((file) => !file.sourceId && !file.error && !isImageFile(file) && !isContainedFile(file));
  await mapConcurrently(wanted, options.concurrency ?? 2, async (file) => {
    if (options.signal?.aborted) return;
    try {
      await access.readText(file.id, options.signal);
      result.read.push(file.id);
    } catch (error) {
      result.failed.push({ id: file.id, reason: messageOf(error) });
      // A FileReadError is an answer about the file (cached when lasting); anything else is worth a look.
      const fields = { fileId: file.id, slackFileId: file.slackFileId, error };
      if (error instanceof FileReadError) options.logger?.info('a prefetched file is unreadable', { ...fields, code: error.code });
      else options.logger?.warn('prefetching a file failed', fields);
    }
  });
  return result;
}
