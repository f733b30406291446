/**
 * The FileSource of the Slack edge: a file's object from the messages in hand (or files.info), its bytes downloaded
 * with the bot token from Slack's own hosts only (download.ts), images as the largest version that fits the cap
 * (read-image.ts).
 */
import { displayFileName } from '../../core/thread-file';
import type { Database } from '../../store/database';
import { downloadSlackFile } from './download';
import type { RetryPolicy } from './download-retry';
import { FileDownloadError } from './file-download-error';
import type { FileObjects, FileSource } from '../../files/file-source';
import { readSlackImage } from './read-slack-image';
import { resolveSlackFile } from './resolve-slack-file';
import type { SlackApi } from './slack-file-info';

export interface SlackFileSourceOptions {
  db: Database;
  slack: SlackApi;
  /** The Slack file objects of the thread's messages; others are fetched with files.info. */
  objects?: FileObjects;
  downloadTimeoutMs?: number;
  retry?: RetryPolicy;
  fetch?: typeof fetch;
}

export function createSlackFileSource(options: SlackFileSourceOptions): FileSource {
  const sources = { db: options.db, slack: options.slack, slackFiles: options.objects, fetch: options.fetch };
  const download = {
    botToken: options.slack.botToken,
    apiUrl: options.slack.apiUrl,
    timeoutMs: options.downloadTimeoutMs,
    retry: options.retry,
    fetch: options.fetch,
  };
  return {
    async readBytes(file, key, { maxBytes, signal }) {
      const object = await resolveSlackFile(sources, file, key, signal);
      const url = object.url_private_download ?? object.url_private;
      if (!url) {
        throw new FileDownloadError(file.name, `Slack gave me no download address for ${displayFileName(file.name)}; share it here again.`);
      }
      const { bytes, contentHash } = await downloadSlackFile({
        ...download,
        url,
        file,
        maxBytes,
        declaredSize: object.size ?? (file.sizeBytes || undefined),
        signal,
      });
      return { bytes, contentHash };
    },
    async readImage(file, key, { maxImageBytes, signal }) {
      const object = await resolveSlackFile(sources, file, key, signal);
      return readSlackImage(file, object, { ...download, maxImageBytes, signal });
    },
  };
}
