/**
 * files.info, for when we hold a file's id but not its Slack object (after a restart, before the thread's messages
 * are read again): the object carries the download URL and thumbnails. Deleted files come back as errors.
 */
import { displayFileName } from '../../core/thread-file';
import { FileDownloadError } from './file-download-error';
import type { SlackFileObject } from '../../core/slack-file';

export interface SlackApi {
  botToken: string;
  /** SLACK_API_URL, e.g. "https://slack.com/api/". */
  apiUrl: string;
}

export type FileInfoResult = { ok: true; file: SlackFileObject } | { ok: false; gone: true };

export async function fetchSlackFileInfo(
  slack: SlackApi,
  slackFileId: string,
  options: { fetch?: typeof fetch; signal?: AbortSignal; fileName: string },
): Promise<FileInfoResult> {
  const doFetch = options.fetch ?? fetch;
  const url = new URL('files.info', slack.apiUrl.endsWith('/') ? slack.apiUrl : `${slack.apiUrl}/`);
  const response = await doFetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${slack.botToken}`,
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    },
    body: new URLSearchParams({ file: slackFileId }).toString(),
    signal: options.signal ?? null,
  });
  const body = (await response.json().catch(() => undefined)) as
    | { ok?: boolean; error?: string; file?: SlackFileObject }
    | undefined;
  if (body?.ok && body.file) return { ok: true, file: body.file };
  // Slack says file_deleted for a deleted file, file_not_found when only a tombstone is left.
  if (body?.error === 'file_deleted' || body?.error === 'file_not_found') return { ok: false, gone: true };
  const reason = body?.error ?? `HTTP ${response.status}`;
  throw new FileDownloadError(
    options.fileName,
    `I couldn't look up ${displayFileName(options.fileName)} in Slack (files.info: ${reason}). Ask again in a moment, or share the file again.`,
    response.status,
  );
}
