/**
 * The bounded backfill: when threadwise starts or joins a channel, the last `days` of its messages (and the replies
 * of their threads) are read with conversations.history and conversations.replies, page by page with cursors,
 * waiting out 429s on the given Clock, and indexed as events would have indexed them. Bounded in time and in
 * messages, so a huge channel costs a known number of calls.
 */
import { inArray } from 'drizzle-orm';
import type { Clock } from '../core/clock';
import type { Database } from '../store/database';
import { knowledgeChannels } from '../store/schema';
import { callWithRateLimit, type ApiMessage, type KnowledgeSlackApi } from './slack-api';
import { dateToTs } from './message-text';
import { indexMessages, isIndexable, markChannelBackfilled, noteChannel, type MessageToIndex } from './message-index';

export interface BackfillOptions {
  /** How far back: default 30 days. */
  days?: number;
  teamId: string;
  clock: Clock;
  /** threadwise's own user id: its messages are not indexed. */
  botUserId?: string;
  /** Most messages read (top-level and replies together); default 20,000. */
  maxMessages?: number;
  /** Messages per page asked for; Slack caps it anyway. Default 200. */
  pageSize?: number;
  signal?: AbortSignal;
}

export interface BackfillResult {
  messages: number;
  threads: number;
  pages: number;
  /** True when maxMessages stopped it before the window was covered. */
  truncated: boolean;
}

const DAY_MS = 24 * 60 * 60_000;

export async function backfillChannel(api: KnowledgeSlackApi, db: Database, channel: string, options: BackfillOptions): Promise<BackfillResult> {
  const { clock, teamId, signal } = options;
  const days = options.days ?? 30;
  const maxMessages = options.maxMessages ?? 20_000;
  const limit = options.pageSize ?? 200;
  const oldest = dateToTs(clock.now() - days * DAY_MS);
  const call = <T>(fn: () => Promise<T>) => callWithRateLimit(fn, clock, { signal });
  const result: BackfillResult = { messages: 0, threads: 0, pages: 0, truncated: false };

  const info = await call(() => api.conversations.info({ channel })).catch(() => undefined);
  const facts = info?.channel;
  await noteChannel(db, { teamId, channelId: channel, name: facts?.name, kind: facts ? kindOf(facts) : undefined });

  const toIndex = (messages: ApiMessage[]): MessageToIndex[] =>
    messages
      .filter((m): m is ApiMessage & { ts: string } => Boolean(m.ts) && isIndexable(m, options.botUserId))
      .map((m) => ({ teamId: m.team || teamId, channelId: channel, ts: m.ts, threadTs: m.thread_ts, userId: m.user ?? m.bot_id, text: m.text ?? '', edited: Boolean(m.edited) }));

  const parents: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(() => api.conversations.history({ channel, oldest, limit, cursor }));
    result.pages += 1;
    const messages = page.messages ?? [];
    for (const m of messages) if (m.ts && (m.reply_count ?? 0) > 0 && (!m.thread_ts || m.thread_ts === m.ts)) parents.push(m.ts);
    result.messages += await indexMessages(db, toIndex(messages));
    if (result.messages >= maxMessages) {
      result.truncated = Boolean(page.has_more);
      break;
    }
    cursor = page.has_more ? page.response_metadata?.next_cursor || undefined : undefined;
  } while (cursor);

  for (const parent of parents) {
    if (result.messages >= maxMessages) {
      result.truncated = true;
      break;
    }
    result.threads += 1;
    let replyCursor: string | undefined;
    do {
      const page = await call(() => api.conversations.replies({ channel, ts: parent, oldest, limit, cursor: replyCursor }));
      result.pages += 1;
      // The parent comes with the first page (and on every page for some deployments): it is indexed already.
      result.messages += await indexMessages(db, toIndex((page.messages ?? []).filter((m) => m.ts !== parent)));
      replyCursor = page.has_more ? page.response_metadata?.next_cursor || undefined : undefined;
    } while (replyCursor && result.messages < maxMessages);
  }
  await markChannelBackfilled(db, channel, new Date(clock.now()));
  return result;
}

/** channel | group | im | mpim, as message events name a conversation's kind. */
function kindOf(channel: { is_im?: boolean; is_mpim?: boolean; is_private?: boolean }): string {
  if (channel.is_im) return 'im';
  if (channel.is_mpim) return 'mpim';
  return channel.is_private ? 'group' : 'channel';
}

/**
 * Backfills several channels one after another (at start: the channels users.conversations lists), skipping those
 * backfilled within `freshForMs` (default a day: a restart does not read everything again). A channel that fails is
 * reported and the rest go on.
 */
export async function backfillChannels(
  api: KnowledgeSlackApi,
  db: Database,
  channelIds: readonly string[],
  options: BackfillOptions & { freshForMs?: number; onError?: (channelId: string, error: unknown) => void },
): Promise<Map<string, BackfillResult>> {
  const fresh = options.freshForMs ?? DAY_MS;
  const done = new Map<string, BackfillResult>();
  const rows = channelIds.length
    ? await db.select({ id: knowledgeChannels.channelId, at: knowledgeChannels.backfilledAt }).from(knowledgeChannels).where(inArray(knowledgeChannels.channelId, [...channelIds]))
    : [];
  const lastBackfill = new Map(rows.map((r) => [r.id, r.at?.getTime() ?? 0]));
  for (const channelId of channelIds) {
    options.signal?.throwIfAborted();
    if (options.clock.now() - (lastBackfill.get(channelId) ?? 0) < fresh) continue;
    try {
      done.set(channelId, await backfillChannel(api, db, channelId, options));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      options.onError?.(channelId, error);
    }
  }
  return done;
}
