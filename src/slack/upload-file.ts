/**
 * Uploads bytes into a Slack thread through Slack's current flow (files.upload is retired):
 * 1. files.getUploadURLExternal(filename, length) → a one-time upload URL and the new file's id;
 * 2. the bytes POSTed to that URL — without the bot token: the URL itself is the credential, so the token never
 *    travels anywhere but the Web API client's own base URL (slack.com, or SLACK_API_URL);
 * 3. files.completeUploadExternal(files, channel_id, thread_ts) shares it into the thread.
 * It takes a small slice of the Web API (an @slack/web-api WebClient fits), not Bolt.
 */
import { ThreadwiseError } from '../core/errors';

/** The two Web API methods the upload uses; @slack/web-api's WebClient satisfies this. */
export interface FileUploadWebApi {
  files: {
    getUploadURLExternal(args: { filename: string; length: number; alt_text?: string }): Promise<{ ok?: boolean; error?: string; upload_url?: string; file_id?: string }>;
    completeUploadExternal(args: {
      files: [{ id: string; title?: string }];
      channel_id: string;
      thread_ts: string;
      initial_comment?: string;
    }): Promise<{ ok?: boolean; error?: string; files?: Array<{ id?: string; title?: string }> }>;
  };
}

export interface UploadIntoThread {
  channel: string;
  threadTs: string;
  filename: string;
  bytes: Uint8Array;
  /** Shown instead of the file name in Slack. */
  title?: string;
  /** Describes an image for screen readers (charts). */
  altText?: string;
  /** A message posted with the file. */
  comment?: string;
  signal?: AbortSignal;
}

export type UploadErrorCode = 'slack_upload_failed';

export class SlackUploadError extends ThreadwiseError<UploadErrorCode> {
  override readonly name: string = 'SlackUploadError';
}

/** Most bytes one upload sends: Slack's own limit per file is 1 GB; what threadwise makes is far smaller. */
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export async function uploadFileToThread(api: FileUploadWebApi, upload: UploadIntoThread, fetchImpl: typeof fetch = fetch): Promise<{ fileId: string }> {
  const context = { channel: upload.channel, threadTs: upload.threadTs, filename: upload.filename, bytes: upload.bytes.byteLength };
  if (upload.bytes.byteLength === 0) throw new SlackUploadError('slack_upload_failed', `${upload.filename} is empty; Slack does not take empty files.`, { context });
  if (upload.bytes.byteLength > MAX_UPLOAD_BYTES) {
    throw new SlackUploadError('slack_upload_failed', `${upload.filename} is ${formatMb(upload.bytes.byteLength)}; uploads are limited to ${formatMb(MAX_UPLOAD_BYTES)}.`, { context });
  }

  const reserved = await api.files.getUploadURLExternal({
    filename: upload.filename,
    length: upload.bytes.byteLength,
    ...(upload.altText ? { alt_text: upload.altText.slice(0, 1000) } : {}),
  });
  if (!reserved.upload_url || !reserved.file_id) {
    throw new SlackUploadError('slack_upload_failed', `Slack gave no upload URL for ${upload.filename} (${reserved.error ?? 'no error named'}).`, { context });
  }

  const response = await fetchImpl(reserved.upload_url, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    // A Blob over the bytes: fetch's BodyInit types a Uint8Array only over a plain ArrayBuffer.
    body: new Blob([upload.bytes as Uint8Array<ArrayBuffer>]),
    signal: upload.signal,
  });
  // The body is a short status line; read it so the connection is released.
  const answer = await response.text();
  if (!response.ok) {
    throw new SlackUploadError('slack_upload_failed', `Slack refused the bytes of ${upload.filename} (HTTP ${response.status}: ${answer.slice(0, 200)}).`, { context });
  }

  const completed = await api.files.completeUploadExternal({
    files: [{ id: reserved.file_id, ...(upload.title ? { title: upload.title } : {}) }],
    channel_id: upload.channel,
    thread_ts: upload.threadTs,
    ...(upload.comment ? { initial_comment: upload.comment } : {}),
  });
  if (completed.ok === false) {
    throw new SlackUploadError('slack_upload_failed', `Slack did not share ${upload.filename} into the thread (${completed.error ?? 'no error named'}).`, { context });
  }
  return { fileId: reserved.file_id };
}

function formatMb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
