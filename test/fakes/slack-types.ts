/**
 * Shapes the fake Slack hands out. They follow Slack's own JSON (snake_case, `ts` strings) so that the app code
 * under test parses exactly what it would parse in production.
 */

import type { Readable } from 'node:stream';

/** A file as Slack describes it in messages, events and files.info. Tombstones carry only `id` and `mode`. */
export interface SlackFileObject {
  id: string;
  mode: 'hosted' | 'external' | 'tombstone' | 'snippet';
  name?: string;
  title?: string;
  mimetype?: string;
  filetype?: string;
  pretty_type?: string;
  size?: number;
  created?: number;
  timestamp?: number;
  user?: string;
  user_team?: string;
  editable?: boolean;
  is_external?: boolean;
  external_type?: string;
  external_url?: string;
  is_public?: boolean;
  public_url_shared?: boolean;
  display_as_bot?: boolean;
  url_private?: string;
  url_private_download?: string;
  permalink?: string;
  file_access?: string;
  original_w?: number;
  original_h?: number;
  thumb_64?: string;
  thumb_80?: string;
  thumb_160?: string;
  thumb_360?: string;
  thumb_480?: string;
  thumb_720?: string;
  thumb_800?: string;
  thumb_960?: string;
  thumb_1024?: string;
  thumb_pdf?: string;
}

interface SlackReaction {
  name: string;
  users: string[];
  count: number;
}

/** A message as conversations.replies / conversations.history return it. */
export interface StoredMessage {
  type: 'message';
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  team?: string;
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
  files?: SlackFileObject[];
  edited?: { user: string; ts: string };
  subtype?: string;
  hidden?: boolean;
  reactions?: SlackReaction[];
  metadata?: unknown;
  bot_profile?: { id: string; name: string; app_id: string; user_id: string; team_id: string; deleted: boolean };
  /** Present on a thread parent that has replies. */
  reply_count?: number;
  reply_users?: string[];
  reply_users_count?: number;
  latest_reply?: string;
  /** Present on replies. */
  parent_user_id?: string;
}

export interface FakeUser {
  id: string;
  name: string;
  displayName?: string;
  realName?: string;
  isBot?: boolean;
  botId?: string;
  /** Left the workspace (users.info says deleted: true). */
  deleted?: boolean;
  /** Their time zone (users.info `tz`); default Europe/London. */
  tz?: string;
}

export interface FakeChannel {
  id: string;
  name: string;
  purpose?: string;
  isIm?: boolean;
  /** A private channel (conversations.info is_private: true). */
  isPrivate?: boolean;
  /** conversations.members; default: nobody but the bot. */
  members?: string[];
}

export type FileAccess = 'ok' | 'html_login' | 'deleted' | 'external' | 'tombstone';

export interface AddFileInput {
  id?: string;
  name: string;
  mimetype: string;
  filetype?: string;
  /** Bytes, text, or a factory for a fresh stream per download (for endless/huge bodies in streaming-cap tests). */
  content: Buffer | string | (() => Readable);
  access?: FileAccess;
  /** e.g. { thumb_1024: pngBytes }; each becomes a `thumb_*` URL on this server that demands the bot token. */
  thumbs?: Record<string, Buffer>;
  /** Size claimed in the file object, whatever the real bytes (e.g. 1 GB to test size caps before download). */
  declaredSize?: number;
  /** Uploader; defaults to 'U0UPLOADER'. */
  user?: string;
}

export type SlackFailure = { status: 429; retryAfter: number } | { status: 500 | 502 | 503 } | { error: string };

export interface RecordedCall {
  method: string;
  /** The decoded arguments: form fields, with JSON-encoded nested fields (blocks, chunks…) parsed back. */
  body: Record<string, any>;
  token?: string;
  at: number;
  /** What the fake answered: 'ok', an error code, or 'http_<status>'. */
  outcome?: string;
}
