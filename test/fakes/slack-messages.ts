/**
 * The fake workspace's channels and messages. Kept apart from the HTTP layer so the paging and threading rules —
 * the parts app bugs hide in — read in one place.
 */
import type { FakeChannel, StoredMessage } from './slack-types';

/** Slack ts "1700000000.000100" ⇄ integer microseconds, so ordering is numeric, not lexical. */
function tsToMicros(ts: string): number {
  const [seconds = '0', fraction = ''] = ts.split('.');
  return Number(seconds) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

function microsToTs(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  return `${seconds}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

interface Entry {
  message: StoredMessage;
  /** Posted through the Web API by the bot (as opposed to seeded by the test). */
  byBot: boolean;
  stream?: 'streaming' | 'stopped';
}

interface ChannelState {
  info: FakeChannel;
  /** Explicitly added (conversations.info answers), or only implied by a message. */
  known: boolean;
  entries: Map<string, Entry>;
  /** Bot-posted ts in posting order; botMessages() follows it. */
  botOrder: string[];
}

export interface Page {
  messages: StoredMessage[];
  hasMore: boolean;
  nextCursor?: string;
}

const encodeCursor = (ts: string) => Buffer.from(`next_ts:${ts}`).toString('base64');
function decodeCursor(cursor: string): string | undefined {
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  return text.startsWith('next_ts:') ? text.slice('next_ts:'.length) : undefined;
}

export class MessageStore {
  private readonly channels = new Map<string, ChannelState>();
  // Deterministic clock: every generated ts is later than anything seen, 100 µs apart.
  private lastMicros = tsToMicros('1700000000.000000');

  nextTs(): string {
    this.lastMicros += 100;
    return microsToTs(this.lastMicros);
  }

  private observe(ts: string): void {
    this.lastMicros = Math.max(this.lastMicros, tsToMicros(ts));
  }

  addChannel(channel: FakeChannel): void {
    const state = this.channel(channel.id);
    state.info = { ...channel };
    state.known = true;
  }

  /** Channel state, created on first use: tests need not declare every channel a message lives in. */
  channel(id: string): ChannelState {
    let state = this.channels.get(id);
    if (!state) {
      state = { info: { id, name: `channel-${id.toLowerCase()}`, isIm: id.startsWith('D') }, known: false, entries: new Map(), botOrder: [] };
      this.channels.set(id, state);
    }
    return state;
  }

  hasChannel(id: string): boolean {
    return this.channels.has(id);
  }

  channelInfo(id: string): FakeChannel | undefined {
    return this.channels.get(id)?.info;
  }

  put(channel: string, message: StoredMessage, options: { byBot?: boolean; stream?: Entry['stream'] } = {}): StoredMessage {
    const state = this.channel(channel);
    this.observe(message.ts);
    if (state.entries.has(message.ts)) throw new Error(`fake-slack: message ${channel}/${message.ts} already exists`);
    state.entries.set(message.ts, { message, byBot: options.byBot ?? false, stream: options.stream });
    if (options.byBot) state.botOrder.push(message.ts);
    return message;
  }

  get(channel: string, ts: string): StoredMessage | undefined {
    return this.channels.get(channel)?.entries.get(ts)?.message;
  }

  streamState(channel: string, ts: string): Entry['stream'] {
    return this.channels.get(channel)?.entries.get(ts)?.stream;
  }

  setStreamState(channel: string, ts: string, stream: Entry['stream']): void {
    const entry = this.channels.get(channel)?.entries.get(ts);
    if (entry) entry.stream = stream;
  }

  /**
   * Removes a message. A thread parent that still has replies becomes a tombstone, as in Slack, so the thread
   * stays readable.
   */
  delete(channel: string, ts: string): boolean {
    const state = this.channels.get(channel);
    const entry = state?.entries.get(ts);
    if (!state || !entry) return false;
    if (this.replies(channel, ts).length > 0) {
      entry.message = {
        type: 'message',
        subtype: 'tombstone',
        ts,
        thread_ts: ts,
        user: 'USLACKBOT',
        text: 'This message was deleted.',
        hidden: true,
      };
      return true;
    }
    state.entries.delete(ts);
    state.botOrder = state.botOrder.filter((t) => t !== ts);
    return true;
  }

  private sorted(state: ChannelState): StoredMessage[] {
    return [...state.entries.values()].map((e) => e.message).sort((a, b) => tsToMicros(a.ts) - tsToMicros(b.ts));
  }

  private replies(channel: string, parentTs: string): StoredMessage[] {
    const state = this.channels.get(channel);
    if (!state) return [];
    return this.sorted(state).filter((m) => m.thread_ts === parentTs && m.ts !== parentTs);
  }

  /** A message as the API shows it: parents carry their reply summary, replies their parent's author. */
  private present(channel: string, message: StoredMessage): StoredMessage {
    const copy = structuredClone(message);
    if (message.thread_ts && message.thread_ts !== message.ts) {
      const parent = this.get(channel, message.thread_ts);
      const parentUser = parent?.user;
      if (parentUser) copy.parent_user_id = parentUser;
      return copy;
    }
    const replies = this.replies(channel, message.ts);
    if (replies.length > 0) {
      const users = [...new Set(replies.map((r) => r.user ?? r.bot_id ?? 'unknown'))];
      copy.thread_ts = message.ts;
      copy.reply_count = replies.length;
      copy.reply_users = users.slice(0, 5);
      copy.reply_users_count = users.length;
      copy.latest_reply = replies[replies.length - 1]!.ts;
    }
    return copy;
  }

  /**
   * conversations.replies. `ts` may name the parent or any reply. The parent comes first and counts toward
   * `limit`; continuation pages omit it unless `repeatParent` (some Slack deployments repeat it on every page,
   * and a robust client dedupes by ts).
   */
  thread(
    channel: string,
    ts: string,
    options: { limit: number; cursor?: string; oldest?: string; latest?: string; inclusive?: boolean; repeatParent?: boolean },
  ): Page | 'thread_not_found' | 'invalid_cursor' {
    const target = this.get(channel, ts);
    if (!target) return 'thread_not_found';
    const parentTs = target.thread_ts ?? target.ts;
    const parent = this.get(channel, parentTs) ?? target;
    const replies = parent.ts === parentTs ? this.replies(channel, parentTs).filter((r) => inWindow(r.ts, options)) : [];
    let start = 0;
    if (options.cursor) {
      const from = decodeCursor(options.cursor);
      if (from === undefined) return 'invalid_cursor';
      start = replies.findIndex((r) => tsToMicros(r.ts) >= tsToMicros(from));
      if (start < 0) start = replies.length;
    }
    const withParent = !options.cursor || options.repeatParent;
    const room = Math.max(1, options.limit - (withParent ? 1 : 0));
    const pageReplies = replies.slice(start, start + room);
    const next = replies[start + room];
    const messages = [...(withParent ? [parent] : []), ...pageReplies].map((m) => this.present(channel, m));
    return { messages, hasMore: next !== undefined, nextCursor: next ? encodeCursor(next.ts) : undefined };
  }

  /** conversations.history: top-level messages (and broadcasts), newest first. */
  history(
    channel: string,
    options: { limit: number; cursor?: string; oldest?: string; latest?: string; inclusive?: boolean },
  ): Page | 'invalid_cursor' {
    const state = this.channels.get(channel);
    const top = state
      ? this.sorted(state)
          .filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.subtype === 'thread_broadcast')
          .filter((m) => inWindow(m.ts, options))
          .reverse()
      : [];
    let start = 0;
    if (options.cursor) {
      const from = decodeCursor(options.cursor);
      if (from === undefined) return 'invalid_cursor';
      start = top.findIndex((m) => tsToMicros(m.ts) <= tsToMicros(from));
      if (start < 0) start = top.length;
    }
    const page = top.slice(start, start + options.limit);
    const next = top[start + options.limit];
    return {
      messages: page.map((m) => this.present(channel, m)),
      hasMore: next !== undefined,
      nextCursor: next ? encodeCursor(next.ts) : undefined,
    };
  }

  botMessages(channel: string, threadTs?: string): StoredMessage[] {
    const state = this.channels.get(channel);
    if (!state) return [];
    return state.botOrder
      .map((ts) => state.entries.get(ts)?.message)
      .filter((m): m is StoredMessage => m !== undefined)
      .filter((m) => threadTs === undefined || m.thread_ts === threadTs)
      .map((m) => structuredClone(m));
  }
}

function inWindow(ts: string, options: { oldest?: string; latest?: string; inclusive?: boolean }): boolean {
  const t = tsToMicros(ts);
  if (options.oldest !== undefined) {
    const o = tsToMicros(options.oldest);
    if (options.inclusive ? t < o : t <= o) return false;
  }
  if (options.latest !== undefined) {
    const l = tsToMicros(options.latest);
    if (options.inclusive ? t > l : t >= l) return false;
  }
  return true;
}
