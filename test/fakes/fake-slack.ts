/**
 * A fake Slack Web API over real HTTP. The real @slack/web-api WebClient (and Bolt, through it) talk to it with
 * `slackApiUrl: fake.apiUrl`, so request encoding, retries on 429 and paging are the production code paths.
 *
 * Encoding, as web-api 8.2 sends it: POST, `application/x-www-form-urlencoded`, the token in
 * `Authorization: Bearer`, every non-scalar argument (blocks, chunks, metadata…) JSON-stringified into one form
 * field, numbers and booleans as strings ("limit=2", "inclusive=true"). JSON bodies are accepted too.
 *
 * Strictness is on purpose: wrong token, unknown method, unknown thread, over-long messages and edits of other
 * people's messages all fail as Slack fails them, so app bugs surface here rather than in a workspace.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, readBody, sendJson, sendText, Waiters } from './http';
import { FileStore, type DownloadRecord } from './slack-files';
import { checkMessage, LIMITS } from './slack-limits';
import { MessageStore } from './slack-messages';
import { postSlackEvent } from './slack-signing';
import type {
  AddFileInput,
  FakeChannel,
  FakeUser,
  RecordedCall,
  SlackFailure,
  SlackFileObject,
  StoredMessage,
} from './slack-types';

;
;

export interface FakeSlackOptions {
  botToken?: string;
  botUserId?: string;
  botId?: string;
  teamId?: string;
  botName?: string;
}

interface AddMessageInput {
  ts?: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  text: string;
  files?: SlackFileObject[];
  edited?: { user: string; ts: string };
  subtype?: string;
  blocks?: unknown[];
}

interface EphemeralMessage {
  channel: string;
  user: string;
  text?: string;
  blocks?: unknown[];
  thread_ts?: string;
  message_ts: string;
}

export interface FakeSlack {
  /** 'http://127.0.0.1:PORT/api/' — the app's SLACK_API_URL. */
  apiUrl: string;
  /** 'http://127.0.0.1:PORT' */
  origin: string;
  botToken: string;
  botUserId: string;
  botId: string;
  teamId: string;
  appId: string;
  botName: string;
  addUser(user: FakeUser): void;
  addChannel(channel: FakeChannel): void;
  /** Replaces a channel's members (conversations.members; the bot is always one). */
  setMembers(channel: string, members: string[]): void;
  /** Seeds a message (thread parent or reply). ts auto-generated if absent (monotonic, "1700000000.000100" style). */
  addMessage(channel: string, message: AddMessageInput): StoredMessage;
  /**
   * Removes a message; a parent with replies becomes a "This message was deleted." tombstone, as in Slack. A
   * subscribed app gets the message_deleted event; resolves with that delivery's HTTP status (undefined if none).
   */
  deleteMessage(channel: string, ts: string): Promise<number | undefined>;
  /** Deletes a file as someone would in Slack (info: file_deleted); a subscribed app gets file_deleted. */
  deleteFile(id: string): Promise<number | undefined>;
  /** Where Slack sends this workspace's events (signed with `signingSecret`), as an app's event subscription does. */
  subscribe(eventsUrl: string | (() => string), signingSecret: string): void;
  /** Registers a file with content; returns the Slack file object to attach to messages and events. */
  addFile(file: AddFileInput): SlackFileObject;
  /** The bytes of a seeded or uploaded file (files.uploadV2 lands here), undefined for streamed content. */
  fileContent(id: string): Buffer | undefined;
  /** Every Web API call, in order (failed ones too: see `outcome`). */
  calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  /** File download requests. */
  downloads: DownloadRecord[];
  /** Messages the bot posted (postMessage, update applied, streamed), in posting order; ephemerals excluded. */
  botMessages(channel: string, threadTs?: string): StoredMessage[];
  /** Ephemeral messages (chat.postEphemeral): recorded, never in replies or history. */
  ephemerals: EphemeralMessage[];
  /** `status` values sent with assistant.threads.setStatus for one thread, in order ('' clears). */
  statuses(channel: string, threadTs: string): string[];
  /** Next `times` (default 1) calls of `method` fail: 429 + Retry-After, an HTTP 5xx, or ok:false with a code. */
  failNext(method: string, failure: SlackFailure, times?: number): void;
  /** Every call of `method` fails with ok:false `error` until reset(). */
  refuse(method: string, error: string): void;
  /** Caps every conversations.replies/history page at this many messages, whatever `limit` asks (default 1000). */
  maxPageSize: number;
  /** Repeat the thread parent at the top of every conversations.replies page (default false: first page only). */
  repeatParentOnEveryPage: boolean;
  /** Resolves when predicate(fake) is true; rejects after timeoutMs (default 10 s) listing the calls seen. */
  waitFor(predicate: (fake: FakeSlack) => boolean, timeoutMs?: number): Promise<void>;
  /** Clears calls, downloads, ephemerals, statuses, failures, refusals and paging knobs; keeps users, channels,
   * messages and files. */
  reset(): void;
  close(): Promise<void>;
}

type ApiResult = { ok: true; [key: string]: unknown } | { ok: false; error: string; [key: string]: unknown };
type Method = (args: Record<string, any>) => ApiResult;

/** Fields web-api JSON-stringifies into a form field; parsed back so tests assert on objects. */
const JSON_FIELDS = new Set(['blocks', 'attachments', 'chunks', 'metadata', 'loading_messages', 'unfurls', 'user_auth_blocks', 'files', 'view', 'prompts']);

function decodeArgs(contentType: string, raw: Buffer): Record<string, any> {
  const text = raw.toString('utf8');
  if (contentType.includes('application/json')) {
    const parsed: unknown = text ? JSON.parse(text) : {};
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, any>) : {};
  }
  const args: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (JSON_FIELDS.has(key) && /^\s*[[{]/.test(value)) {
      try {
        args[key] = JSON.parse(value);
        continue;
      } catch {
        // Malformed JSON reaches the method as a string and fails its validation there, like in Slack.
      }
    }
    args[key] = value;
  }
  return args;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
const bool = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 1;
const int = (v: unknown, fallback: number): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number.parseInt(v, 10) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

/** Text of the markdown_text chunks (chat.*Stream `chunks`), the form web-api 8.2's ChatStreamer sends. */
function chunkText(chunks: unknown): string {
  if (!Array.isArray(chunks)) return '';
  return chunks
    .filter((c): c is { type: 'markdown_text'; text: string } => c?.type === 'markdown_text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join('');
}

function chunkBlocks(chunks: unknown): unknown[] {
  if (!Array.isArray(chunks)) return [];
  return chunks.filter((c) => c?.type === 'blocks' && Array.isArray(c.blocks)).flatMap((c) => c.blocks as unknown[]);
}

/** Text a chat.*Stream call adds: `markdown_text`, then any markdown_text chunks. */
function streamedText(args: Record<string, any>): string {
  return (typeof args.markdown_text === 'string' ? args.markdown_text : '') + chunkText(args.chunks);
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  let subscription: { url: () => string; signingSecret: string } | undefined;
  /** Delivers an event to the subscribed app, signed; its HTTP status, or undefined without a subscription. */
  const sendEvent = async (event: Record<string, unknown>): Promise<number | undefined> => {
    if (!subscription) return undefined;
    const response = await postSlackEvent(subscription.url(), subscription.signingSecret, event, { teamId: fake.teamId });
    return response.status;
  };
  const botToken = options.botToken ?? 'xoxb-fake-bot-token';
  const botUserId = options.botUserId ?? 'U0BOT';
  const botId = options.botId ?? 'B0BOT';
  const teamId = options.teamId ?? 'T0TEAM';
  const botName = options.botName ?? 'threadwise';
  const appId = 'A0FAKEAPP';

  const users = new Map<string, FakeUser>();
  const store = new MessageStore();
  const waiters = new Waiters();
  const failures = new Map<string, SlackFailure[]>();
  const refusals = new Map<string, string>();
  const statusLog: Array<{ channel: string; threadTs: string; status: string }> = [];
  let files: FileStore | undefined;

  const botProfile = () => ({ id: botId, name: botName, app_id: appId, user_id: botUserId, team_id: teamId, deleted: false });
  users.set(botUserId, { id: botUserId, name: botName, realName: botName, isBot: true, botId });

  const ok = (fields: Record<string, unknown> = {}): ApiResult => ({ ok: true, ...fields });
  let viewCount = 0;
  /** Channels the bot is a member of (users.conversations): every channel added that is not a DM. */
  const memberOf: string[] = [];
  const dmChannelOf = (user: string) => `D${user.slice(1)}`;
  /** Slack's view limits that matter here: a known type, a title for modals (24 characters), at most 100 blocks (modals and home), 3,000 characters a section. */
  const checkView = (view: unknown, types: string[]): ApiResult | undefined => {
    const v = view as { type?: string; title?: unknown; blocks?: unknown[] } | undefined;
    if (!v || typeof v !== 'object') return fail('invalid_arguments', 'missing required field: view');
    if (!types.includes(v.type ?? '')) return fail('invalid_arguments', `view.type must be ${types.join(' or ')}`);
    if (v.type === 'modal' && !v.title) return fail('invalid_arguments', 'a modal needs a title');
    if (!Array.isArray(v.blocks) || v.blocks.length > 100) return fail('invalid_blocks', 'a view holds 1 to 100 blocks');
    const title = (v.title as { text?: unknown } | undefined)?.text;
    if (typeof title === 'string' && title.length > 24) return fail('invalid_arguments', 'must be less than 25 characters [json-pointer:/view/title/text]');
    for (const [i, block] of v.blocks.entries()) {
      const text = (block as { type?: string; text?: { text?: unknown } }).type === 'section' ? (block as { text?: { text?: unknown } }).text?.text : undefined;
      if (typeof text === 'string' && text.length > LIMITS.sectionTextChars) {
        return fail('invalid_blocks', `must be less than ${LIMITS.sectionTextChars + 1} characters [json-pointer:/view/blocks/${i}/text]`);
      }
    }
    return undefined;
  };
  const fail = (error: string, detail?: string): ApiResult =>
    detail ? { ok: false, error, response_metadata: { messages: [`[ERROR] ${detail}`] } } : { ok: false, error };

  function userJson(user: FakeUser) {
    const realName = user.realName ?? user.name;
    const displayName = user.displayName ?? '';
    return {
      id: user.id,
      team_id: teamId,
      name: user.name,
      deleted: user.deleted === true,
      color: '9f69e7',
      real_name: realName,
      tz: user.tz ?? 'Europe/London',
      tz_label: 'Greenwich Mean Time',
      tz_offset: 0,
      profile: {
        real_name: realName,
        real_name_normalized: realName,
        display_name: displayName,
        display_name_normalized: displayName,
        first_name: realName.split(' ')[0] ?? '',
        last_name: realName.split(' ').slice(1).join(' '),
        avatar_hash: 'g0000000000',
        image_48: 'https://a.slack-edge.com/fake_48.png',
        image_72: 'https://a.slack-edge.com/fake_72.png',
        team: teamId,
        ...(user.isBot && user.botId ? { bot_id: user.botId, api_app_id: user.id === botUserId ? appId : '' } : {}),
      },
      is_admin: false,
      is_owner: false,
      is_primary_owner: false,
      is_restricted: false,
      is_ultra_restricted: false,
      is_bot: user.isBot ?? false,
      is_app_user: false,
      updated: 1_700_000_000,
    };
  }

  function channelJson(channel: FakeChannel) {
    const isIm = channel.isIm ?? false;
    return {
      id: channel.id,
      name: isIm ? undefined : channel.name,
      is_channel: !isIm,
      is_group: false,
      is_im: isIm,
      is_mpim: false,
      is_private: isIm || (channel.isPrivate ?? false),
      created: 1_700_000_000,
      is_archived: false,
      is_general: false,
      is_member: true,
      name_normalized: isIm ? undefined : channel.name,
      ...(isIm ? { user: 'U0DMUSER', is_user_deleted: false } : {}),
      topic: { value: '', creator: '', last_set: 0 },
      purpose: { value: channel.purpose ?? '', creator: '', last_set: 0 },
    };
  }

  /** A message posted by the bot itself, shaped as Slack returns it. */
  function botMessage(ts: string, args: Record<string, any>, text: string): StoredMessage {
    const message: StoredMessage = {
      type: 'message',
      ts,
      user: botUserId,
      bot_id: botId,
      app_id: appId,
      team: teamId,
      text,
      bot_profile: botProfile(),
    };
    const threadTs = str(args.thread_ts);
    if (threadTs) message.thread_ts = threadTs;
    if (Array.isArray(args.blocks)) message.blocks = args.blocks;
    if (Array.isArray(args.attachments)) message.attachments = args.attachments;
    if (args.metadata && typeof args.metadata === 'object') message.metadata = args.metadata;
    if (threadTs && bool(args.reply_broadcast)) message.subtype = 'thread_broadcast';
    return message;
  }

  const pageCursorArgs = (args: Record<string, any>) => ({
    limit: Math.min(int(args.limit, 1000), fake.maxPageSize),
    cursor: str(args.cursor),
    oldest: str(args.oldest),
    latest: str(args.latest),
    inclusive: bool(args.inclusive),
  });

  /** Slack returns message metadata only when asked with include_all_metadata; apps that rely on it must ask. */
  const withMetadata = (messages: StoredMessage[], args: Record<string, any>) => {
    if (!bool(args.include_all_metadata)) for (const m of messages) delete m.metadata;
    return messages;
  };

  const isOwnMessage = (m: StoredMessage) => m.user === botUserId || m.bot_id === botId;
  /** The bot's own message that is still streaming, or the error Slack gives for it. */
  const streamingMessage = (args: Record<string, any>): { channel: string; ts: string; message: StoredMessage } | { error: string } => {
    const channel = str(args.channel) ?? '';
    const ts = str(args.ts) ?? '';
    const message = store.get(channel, ts);
    if (!message) return { error: 'message_not_found' };
    if (!isOwnMessage(message)) return { error: 'message_not_owned_by_app' };
    if (store.streamState(channel, ts) !== 'streaming') return { error: 'message_not_in_streaming_state' };
    return { channel, ts, message };
  };

  const methods: Record<string, Method> = {
    'auth.test': () =>
      ok({ url: `${fake.origin}/`, team: 'Fake Team', user: botName, team_id: teamId, user_id: botUserId, bot_id: botId, is_enterprise_install: false }),

    'users.info': (args) => {
      const user = users.get(str(args.user) ?? '');
      return user ? ok({ user: userJson(user) }) : fail('user_not_found');
    },

    'bots.info': (args) => {
      const id = str(args.bot);
      const user = [...users.values()].find((u) => u.botId === id);
      if (!id || !user) return fail('bot_not_found');
      return ok({
        bot: {
          id,
          deleted: false,
          name: user.name,
          updated: 1_700_000_000,
          app_id: user.id === botUserId ? appId : `A0${id}`,
          user_id: user.id,
          icons: { image_36: 'https://a.slack-edge.com/bot_36.png', image_48: 'https://a.slack-edge.com/bot_48.png' },
        },
      });
    },

    'conversations.info': (args) => {
      const id = str(args.channel) ?? '';
      const info = store.hasChannel(id) ? store.channelInfo(id) : undefined;
      return info ? ok({ channel: channelJson(info) }) : fail('channel_not_found');
    },

    'conversations.replies': (args) => {
      const channel = str(args.channel);
      const ts = str(args.ts);
      if (!channel || !store.hasChannel(channel)) return fail('channel_not_found');
      if (!ts) return fail('invalid_arguments', 'missing required field: ts');
      const page = store.thread(channel, ts, { ...pageCursorArgs(args), repeatParent: fake.repeatParentOnEveryPage });
      if (typeof page === 'string') return fail(page);
      return ok({
        messages: withMetadata(page.messages, args),
        has_more: page.hasMore,
        ...(page.nextCursor ? { response_metadata: { next_cursor: page.nextCursor } } : {}),
      });
    },

    'conversations.members': (args) => {
      const channel = str(args.channel);
      if (!channel || !store.hasChannel(channel)) return fail('channel_not_found');
      const all = [botUserId, ...(store.channelInfo(channel)?.members ?? [])].filter((m, i, list) => list.indexOf(m) === i);
      const limit = Math.min(int(args.limit, 100), fake.maxPageSize);
      const start = str(args.cursor) ? Number(Buffer.from(str(args.cursor)!, 'base64').toString('utf8').replace('member:', '')) : 0;
      if (!Number.isInteger(start) || start < 0) return fail('invalid_cursor');
      const next = start + limit < all.length ? Buffer.from(`member:${start + limit}`).toString('base64') : '';
      return ok({ members: all.slice(start, start + limit), response_metadata: { next_cursor: next } });
    },

    'conversations.history': (args) => {
      const channel = str(args.channel);
      if (!channel || !store.hasChannel(channel)) return fail('channel_not_found');
      const page = store.history(channel, pageCursorArgs(args));
      if (typeof page === 'string') return fail(page);
      return ok({
        messages: withMetadata(page.messages, args),
        has_more: page.hasMore,
        pin_count: 0,
        ...(page.nextCursor ? { response_metadata: { next_cursor: page.nextCursor } } : {}),
      });
    },

    'chat.postMessage': (args) => {
      // A user id as the channel posts in the app's DM with that user; Slack answers with the DM's id.
      const channel = /^[UW]/.test(str(args.channel) ?? '') ? dmChannelOf(str(args.channel)!) : str(args.channel);
      if (!channel) return fail('channel_not_found');
      const text = typeof args.text === 'string' ? args.text : '';
      if (!text && !Array.isArray(args.blocks) && !Array.isArray(args.attachments)) return fail('no_text');
      const invalid = checkMessage(args);
      if (invalid) return fail(invalid.error, invalid.detail);
      const message = store.put(channel, botMessage(store.nextTs(), args, text), { byBot: true });
      return ok({ channel, ts: message.ts, message: structuredClone(message) });
    },

    'chat.update': (args) => {
      const channel = str(args.channel) ?? '';
      const ts = str(args.ts) ?? '';
      const message = store.get(channel, ts);
      if (!message) return fail('message_not_found');
      if (!isOwnMessage(message)) return fail('cant_update_message');
      const invalid = checkMessage(args);
      if (invalid) return fail(invalid.error, invalid.detail);
      if (typeof args.text === 'string') message.text = args.text;
      if (Array.isArray(args.blocks)) message.blocks = args.blocks;
      if (Array.isArray(args.attachments)) message.attachments = args.attachments;
      if (args.metadata && typeof args.metadata === 'object') message.metadata = args.metadata;
      message.edited = { user: botUserId, ts: store.nextTs() };
      return ok({ channel, ts, text: message.text, message: structuredClone(message) });
    },

    'chat.delete': (args) => {
      const channel = str(args.channel) ?? '';
      const ts = str(args.ts) ?? '';
      const message = store.get(channel, ts);
      if (!message) return fail('message_not_found');
      if (!isOwnMessage(message)) return fail('cant_delete_message');
      store.delete(channel, ts);
      return ok({ channel, ts });
    },

    'chat.postEphemeral': (args) => {
      const channel = str(args.channel);
      const user = str(args.user);
      if (!channel) return fail('channel_not_found');
      if (!user) return fail('user_not_in_channel');
      if (!str(args.text) && !Array.isArray(args.blocks)) return fail('no_text');
      const invalid = checkMessage(args);
      if (invalid) return fail(invalid.error, invalid.detail);
      const messageTs = store.nextTs();
      fake.ephemerals.push({
        channel,
        user,
        text: str(args.text),
        blocks: Array.isArray(args.blocks) ? args.blocks : undefined,
        thread_ts: str(args.thread_ts),
        message_ts: messageTs,
      });
      return ok({ message_ts: messageTs });
    },

    'chat.getPermalink': (args) => {
      const channel = str(args.channel) ?? '';
      const ts = str(args.message_ts) ?? '';
      if (!store.get(channel, ts)) return fail('message_not_found');
      return ok({ channel, permalink: `${fake.origin}/archives/${channel}/p${ts.replace('.', '')}` });
    },

    'reactions.add': (args) => {
      const message = store.get(str(args.channel) ?? '', str(args.timestamp) ?? '');
      const name = str(args.name);
      if (!message) return fail('message_not_found');
      if (!name) return fail('invalid_name');
      message.reactions ??= [];
      const reaction = message.reactions.find((r) => r.name === name);
      if (reaction?.users.includes(botUserId)) return fail('already_reacted');
      if (reaction) {
        reaction.users.push(botUserId);
        reaction.count += 1;
      } else message.reactions.push({ name, users: [botUserId], count: 1 });
      return ok();
    },

    'reactions.remove': (args) => {
      const message = store.get(str(args.channel) ?? '', str(args.timestamp) ?? '');
      const name = str(args.name);
      if (!message) return fail('message_not_found');
      const reaction = message.reactions?.find((r) => r.name === name);
      if (!reaction || !reaction.users.includes(botUserId)) return fail('no_reaction');
      reaction.users = reaction.users.filter((u) => u !== botUserId);
      reaction.count -= 1;
      if (reaction.count === 0) message.reactions = message.reactions!.filter((r) => r !== reaction);
      if (message.reactions!.length === 0) delete message.reactions;
      return ok();
    },

    'assistant.threads.setSuggestedPrompts': (args) => {
      if (!str(args.channel_id)) return fail('invalid_arguments', 'missing required field: channel_id');
      if (!Array.isArray(args.prompts) || args.prompts.length === 0 || args.prompts.length > 4) return fail('invalid_arguments', 'prompts must hold 1 to 4 prompts');
      for (const prompt of args.prompts) if (!prompt?.title || !prompt?.message) return fail('invalid_arguments', 'each prompt needs a title and a message');
      return ok();
    },

    'assistant.threads.setTitle': (args) => {
      if (!str(args.channel_id) || !str(args.thread_ts)) return fail('invalid_arguments', 'missing required field: channel_id or thread_ts');
      if (!str(args.title)) return fail('invalid_arguments', 'missing required field: title');
      return ok();
    },

    'views.open': (args) => {
      if (!str(args.trigger_id)) return fail('invalid_arguments', 'missing required field: trigger_id');
      return checkView(args.view, ['modal']) ?? ok({ view: { id: `V${++viewCount}`, ...args.view } });
    },

    'views.publish': (args) => {
      if (!str(args.user_id)) return fail('invalid_arguments', 'missing required field: user_id');
      return checkView(args.view, ['home']) ?? ok({ view: { id: `V${++viewCount}`, ...args.view } });
    },

    'users.conversations': () =>
      ok({ channels: memberOf.map((id) => ({ id, name: store.channelInfo(id)?.name ?? id, is_channel: true })), response_metadata: { next_cursor: '' } }),

    'assistant.threads.setStatus': (args) => {
      const channel = str(args.channel_id);
      const threadTs = str(args.thread_ts);
      if (!channel || !threadTs) return fail('invalid_arguments', 'missing required field: channel_id or thread_ts');
      if (typeof args.status !== 'string') return fail('invalid_arguments', 'missing required field: status');
      statusLog.push({ channel, threadTs, status: args.status });
      return ok();
    },

    'chat.startStream': (args) => {
      const channel = str(args.channel);
      const threadTs = str(args.thread_ts);
      if (!channel) return fail('channel_not_found');
      if (!threadTs) return fail('invalid_arguments', 'missing required field: thread_ts');
      const text = streamedText(args);
      const message = botMessage(store.nextTs(), { thread_ts: threadTs }, text);
      const blocks = chunkBlocks(args.chunks);
      if (blocks.length > 0) message.blocks = blocks;
      store.put(channel, message, { byBot: true, stream: 'streaming' });
      return ok({ channel, ts: message.ts });
    },

    'chat.appendStream': (args) => {
      const found = streamingMessage(args);
      if ('error' in found) return fail(found.error);
      const { channel, ts, message } = found;
      const text = streamedText(args);
      const blocks = chunkBlocks(args.chunks);
      if (!text && blocks.length === 0 && !Array.isArray(args.chunks)) return fail('invalid_arguments', 'markdown_text or chunks is required');
      message.text += text;
      if (blocks.length > 0) message.blocks = [...(message.blocks ?? []), ...blocks];
      return ok({ channel, ts });
    },

    'chat.stopStream': (args) => {
      const found = streamingMessage(args);
      if ('error' in found) return fail(found.error);
      const { channel, ts, message } = found;
      message.text += streamedText(args);
      const blocks = [...chunkBlocks(args.chunks), ...(Array.isArray(args.blocks) ? args.blocks : [])];
      if (blocks.length > 0) message.blocks = [...(message.blocks ?? []), ...blocks];
      if (args.metadata && typeof args.metadata === 'object') message.metadata = args.metadata;
      store.setStreamState(channel, ts, 'stopped');
      return ok({ channel, ts, message: structuredClone(message) });
    },

    'files.getUploadURLExternal': (args) => {
      const filename = str(args.filename);
      const length = int(args.length, 0);
      if (!filename || length <= 0) return fail('invalid_arguments', 'filename and length are required');
      return ok(files!.reserveUpload(filename, length));
    },

    'files.completeUploadExternal': (args) => {
      if (!Array.isArray(args.files) || args.files.length === 0) return fail('invalid_arguments', 'files is required');
      const done: SlackFileObject[] = [];
      for (const entry of args.files as Array<{ id?: string; title?: string }>) {
        const result = files!.completeUpload(String(entry.id ?? ''), entry.title, botUserId);
        if (typeof result === 'string') return fail(result);
        done.push(result);
      }
      // Sharing into a channel posts a bot message carrying the files (Slack does it asynchronously).
      const channel = str(args.channel_id);
      if (channel) {
        const text = typeof args.initial_comment === 'string' ? args.initial_comment : '';
        const message = botMessage(store.nextTs(), { thread_ts: args.thread_ts, blocks: args.blocks }, text);
        message.files = done;
        store.put(channel, message, { byBot: true });
      }
      return ok({ files: done.map((f) => ({ id: f.id, title: f.title })) });
    },

    'files.info': (args) => {
      const result = files!.info(str(args.file) ?? '');
      return typeof result === 'string' ? fail(result) : ok({ file: result, comments: [], response_metadata: { next_cursor: '' } });
    },
  };

  function tokenOf(req: IncomingMessage, args: Record<string, any>): string | undefined {
    const header = req.headers.authorization;
    if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length);
    return str(args.token);
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const raw = await readBody(req);
    let args: Record<string, any>;
    try {
      args = decodeArgs(req.headers['content-type'] ?? '', raw);
    } catch {
      args = {};
    }
    const token = tokenOf(req, args);
    delete args.token;
    const call: RecordedCall = { method, body: args, token, at: Date.now() };
    fake.calls.push(call);
    try {
      const queued = failures.get(method);
      const failure = queued?.shift();
      if (queued && queued.length === 0) failures.delete(method);
      if (failure && 'status' in failure) {
        call.outcome = `http_${failure.status}`;
        if (failure.status === 429) {
          sendJson(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
        } else {
          sendText(res, failure.status, `<html><body>${failure.status} Service Unavailable</body></html>`, 'text/html');
        }
        return;
      }
      let result: ApiResult;
      if (failure) result = fail(failure.error);
      else if (!token) result = fail('not_authed');
      else if (token !== botToken) result = fail('invalid_auth');
      else if (refusals.has(method)) result = fail(refusals.get(method)!);
      else result = methods[method]?.(args) ?? fail('unknown_method');
      call.outcome = result.ok ? 'ok' : result.error;
      // Real responses carry the token's scopes; some clients log them when a call fails.
      sendJson(res, 200, result, { 'x-oauth-scopes': 'app_mentions:read,channels:history,chat:write,files:read,im:history,reactions:write,users:read' });
    } finally {
      waiters.notify();
    }
  }

  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = decodeURI(url.pathname);
    if (path.startsWith('/api/')) {
      if (req.method !== 'POST' && req.method !== 'GET') return sendJson(res, 405, { ok: false, error: 'method_not_allowed' });
      return handleApi(req, res, path.slice('/api/'.length));
    }
    const upload = /^\/upload\/v1\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'POST' && upload) {
      await files!.receiveUpload(req, res, upload[1]!);
      waiters.notify();
      return;
    }
    if ((req.method === 'GET' || req.method === 'HEAD') && (await files!.serve(req, res, url.pathname))) {
      waiters.notify();
      return;
    }
    sendText(res, 404, 'not found');
  }, 'fake-slack');

  files = new FileStore(listening.origin, teamId, botToken);

  const fake: FakeSlack = {
    apiUrl: `${listening.origin}/api/`,
    origin: listening.origin,
    botToken,
    botUserId,
    botId,
    teamId,
    appId,
    botName,
    calls: [],
    ephemerals: [],
    maxPageSize: 1000,
    repeatParentOnEveryPage: false,
    get downloads() {
      return files!.downloads;
    },
    addUser(user) {
      users.set(user.id, { ...user });
    },
    setMembers(channel, members) {
      const info = store.channelInfo(channel);
      if (!info) throw new Error(`fake-slack: no channel ${channel}`);
      info.members = [...members];
    },
    addChannel(channel) {
      store.addChannel(channel);
      if (!channel.isIm && !channel.id.startsWith('D') && !memberOf.includes(channel.id)) memberOf.push(channel.id);
    },
    addMessage(channel, input) {
      const message: StoredMessage = { type: 'message', ts: input.ts ?? store.nextTs(), text: input.text, team: teamId };
      if (input.thread_ts) message.thread_ts = input.thread_ts;
      if (input.user) message.user = input.user;
      if (input.bot_id) message.bot_id = input.bot_id;
      // Slack marks a message that shares files with subtype file_share; apps that drop every subtype lose them.
      if (input.files) {
        message.files = structuredClone(input.files);
        message.subtype = 'file_share';
      }
      if (input.subtype) message.subtype = input.subtype;
      if (input.edited) message.edited = { ...input.edited };
      if (input.blocks) message.blocks = structuredClone(input.blocks);
      if (input.bot_id && !input.subtype && !input.user) message.subtype = 'bot_message';
      store.put(channel, message);
      return structuredClone(message);
    },
    async deleteMessage(channel, ts) {
      const previous = store.get(channel, ts);
      if (!store.delete(channel, ts)) throw new Error(`fake-slack: no message ${channel}/${ts} to delete`);
      return sendEvent({
        type: 'message',
        subtype: 'message_deleted',
        hidden: true,
        channel,
        ts: store.nextTs(),
        deleted_ts: ts,
        event_ts: ts,
        previous_message: previous ? structuredClone(previous) : undefined,
      });
    },
    async deleteFile(id) {
      if (!files!.remove(id)) throw new Error(`fake-slack: no file ${id} to delete`);
      return sendEvent({ type: 'file_deleted', file_id: id, event_ts: store.nextTs() });
    },
    subscribe(eventsUrl, signingSecret) {
      subscription = { url: typeof eventsUrl === 'string' ? () => eventsUrl : eventsUrl, signingSecret };
    },
    addFile(file) {
      return files!.add(file);
    },
    fileContent(id) {
      return files!.content(id);
    },
    callsTo(method) {
      return fake.calls.filter((c) => c.method === method);
    },
    botMessages(channel, threadTs) {
      return store.botMessages(channel, threadTs);
    },
    statuses(channel, threadTs) {
      return statusLog.filter((s) => s.channel === channel && s.threadTs === threadTs).map((s) => s.status);
    },
    failNext(method, failure, times = 1) {
      const queue = failures.get(method) ?? [];
      for (let i = 0; i < times; i += 1) queue.push(failure);
      failures.set(method, queue);
    },
    refuse(method, error) {
      refusals.set(method, error);
    },
    waitFor(predicate, timeoutMs = 10_000) {
      return waiters.wait(() => predicate(fake), timeoutMs, () => {
        const seen = fake.calls.map((c) => `${c.method}${c.outcome && c.outcome !== 'ok' ? ` → ${c.outcome}` : ''}`);
        return `fake-slack calls seen (${seen.length}): ${seen.join(', ') || 'none'}`;
      });
    },
    reset() {
      fake.calls.length = 0;
      fake.ephemerals.length = 0;
      statusLog.length = 0;
      failures.clear();
      refusals.clear();
      // Paging knobs are per-test settings too; leaking them would make later tests page unexpectedly.
      fake.maxPageSize = 1000;
      fake.repeatParentOnEveryPage = false;
      files!.reset();
    },
    close() {
      return listening.close();
    },
  };
  return fake;
}
