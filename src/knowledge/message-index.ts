/**
 * The index of channel messages: one row per Slack message of a channel threadwise is a member of, analysed for full
 * text exactly as search_file's chunks are (the language its function words give away, else English; CJK as
 * character bigrams), so search_messages finds it in every language search handles. Rows come from message events
 * (applyMessageEvent) and from the backfill (backfill.ts); edits rewrite a row, deletions blank it for good.
 */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../store/database';
import { indexedMessages, knowledgeChannels } from '../store/schema';
import { toCjkBigrams } from '../search/cjk-bigrams';
import { chooseChunkConfig } from '../text/language';
import { countWords, readableMessageText, tsToDate } from './message-text';

export interface MessageToIndex {
  teamId: string;
  channelId: string;
  ts: string;
  threadTs?: string;
  userId?: string;
  text: string;
  edited?: boolean;
}

/**
 * Messages too short to say anything are not worth a row; nor are these subtypes, which Slack writes itself
 * (joins, topic changes, pins…) rather than a person.
 */
const SKIPPED_SUBTYPES = new Set([
  'channel_join', 'channel_leave', 'group_join', 'group_leave', 'channel_topic', 'channel_purpose', 'channel_name',
  'group_topic', 'group_purpose', 'group_name', 'pinned_item', 'unpinned_item', 'channel_archive', 'channel_unarchive',
  'group_archive', 'group_unarchive', 'bot_add', 'bot_remove', 'tombstone', 'reminder_add', 'huddle_thread', 'joiner_notification',
]);

/** Longest text indexed per message: Slack allows 40,000 characters, an index row needs far fewer. */
const MAX_TEXT = 8_000;
/** Most rows per INSERT (PostgreSQL's 65,535 parameters). */
const INSERT_BATCH = 300;

/**
 * Writes messages (new or edited) into the index. A message deleted earlier stays deleted: a backfill page or an
 * event that arrives late cannot bring it back.
 */
export async function indexMessages(db: Database, messages: readonly MessageToIndex[]): Promise<number> {
  let written = 0;
  for (let i = 0; i < messages.length; i += INSERT_BATCH) {
    const rows = messages.slice(i, i + INSERT_BATCH).flatMap((message) => {
      const text = readableMessageText(message.text).slice(0, MAX_TEXT).trim();
      if (!text) return [];
      const config = chooseChunkConfig(text, 'english');
      const bigrams = toCjkBigrams(text).join(' ');
      return [{
        teamId: message.teamId,
        channelId: message.channelId,
        ts: message.ts,
        threadTs: message.threadTs && message.threadTs !== message.ts ? message.threadTs : null,
        userId: message.userId ?? null,
        text,
        edited: message.edited ?? false,
        postedAt: tsToDate(message.ts),
        tokens: countWords(text),
        tsv: sql`to_tsvector(${config}::regconfig, ${text})`,
        cjkTsv: bigrams ? sql`to_tsvector('simple', ${bigrams})` : null,
        updatedAt: new Date(),
      }];
    });
    if (rows.length === 0) continue;
    // A row seen twice in one batch (a broadcast reply in history and in replies) would make the upsert fail.
    const unique = [...new Map(rows.map((row) => [`${row.channelId}/${row.ts}`, row])).values()];
    const done = await db
      .insert(indexedMessages)
      .values(unique)
      .onConflictDoUpdate({
        target: [indexedMessages.channelId, indexedMessages.ts],
        set: {
          text: sql`excluded.text`,
          threadTs: sql`excluded.thread_ts`,
          userId: sql`excluded.user_id`,
          edited: sql`${indexedMessages.edited} or excluded.edited`,
          tokens: sql`excluded.tokens`,
          tsv: sql`excluded.tsv`,
          cjkTsv: sql`excluded.cjk_tsv`,
          updatedAt: sql`excluded.updated_at`,
        },
        setWhere: sql`not ${indexedMessages.deleted}`,
      })
      .returning({ ts: indexedMessages.ts });
    written += done.length;
  }
  return written;
}

/** Slack says the message was deleted: its text goes at once; the blank row keeps it from coming back. */
async function markMessageDeleted(db: Database, teamId: string, channelId: string, ts: string): Promise<void> {
  await db
    .insert(indexedMessages)
    .values({ teamId, channelId, ts, text: '', deleted: true, postedAt: tsToDate(ts), tokens: 0, tsv: sql`''::tsvector`, cjkTsv: null })
    .onConflictDoUpdate({
      target: [indexedMessages.channelId, indexedMessages.ts],
      set: { text: '', deleted: true, tokens: 0, tsv: sql`''::tsvector`, cjkTsv: null, updatedAt: new Date() },
    });
}

/** Notes a channel the index holds messages of (its kind as Slack's events give it; its name when known). */
export async function noteChannel(db: Database, channel: { teamId: string; channelId: string; kind?: string; name?: string }): Promise<void> {
  const set: Record<string, unknown> = { updatedAt: new Date() };
  if (channel.kind) set.kind = channel.kind;
  if (channel.name) set.name = channel.name;
  await db
    .insert(knowledgeChannels)
    .values({ teamId: channel.teamId, channelId: channel.channelId, kind: channel.kind ?? null, name: channel.name ?? null })
    .onConflictDoUpdate({ target: knowledgeChannels.channelId, set });
}

export async function markChannelBackfilled(db: Database, channelId: string, at: Date): Promise<void> {
  await db.update(knowledgeChannels).set({ backfilledAt: at }).where(eq(knowledgeChannels.channelId, channelId));
}

/** Whether a message of this shape is one a person (or an integration) wrote, worth indexing. */
export function isIndexable(message: { subtype?: string; text?: string; user?: string; bot_id?: string }, botUserId?: string): boolean {
  if (message.subtype && SKIPPED_SUBTYPES.has(message.subtype)) return false;
  // threadwise's own answers are not sources: they would be found instead of what they were drawn from.
  if (botUserId && message.user === botUserId) return false;
  return Boolean(message.text?.trim());
}

const ts = z.string().regex(/^\d{1,12}(\.\d{1,9})?$/);
const innerMessage = z.looseObject({
  ts,
  thread_ts: ts.optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  subtype: z.string().optional(),
  edited: z.looseObject({}).optional(),
});
const messageEvent = z.looseObject({
  type: z.literal('message'),
  channel: z.string().min(1),
  channel_type: z.string().optional(),
  team: z.string().optional(),
  subtype: z.string().optional(),
  ts: ts.optional(),
  thread_ts: ts.optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  deleted_ts: ts.optional(),
  message: innerMessage.optional(),
});

export type MessageEventOutcome = 'indexed' | 'updated' | 'deleted' | 'ignored';

export interface MessageEventOptions {
  /** The workspace the event came from (the envelope's team_id); the event's own `team` wins when present. */
  teamId: string;
  /** threadwise's own user id: its messages are not indexed. */
  botUserId?: string;
}

/**
 * One `message` event into the index: a new message, an edit (`message_changed`: the new text replaces the old,
 * and a thread parent deleted under its replies becomes a tombstone, i.e. deleted) or a deletion
 * (`message_deleted`). Anything else (joins, topic changes, malformed events) is ignored.
 */
export async function applyMessageEvent(db: Database, event: unknown, options: MessageEventOptions): Promise<MessageEventOutcome> {
  const parsed = messageEvent.safeParse(event);
  if (!parsed.success) return 'ignored';
  const e = parsed.data;
  const teamId = e.team || options.teamId;
  const channelId = e.channel;
  if (e.subtype === 'message_deleted') {
    if (!e.deleted_ts) return 'ignored';
    await markMessageDeleted(db, teamId, channelId, e.deleted_ts);
    return 'deleted';
  }
  if (e.subtype === 'message_changed') {
    const inner = e.message;
    if (!inner) return 'ignored';
    if (inner.subtype === 'tombstone') {
      await markMessageDeleted(db, teamId, channelId, inner.ts);
      return 'deleted';
    }
    if (!isIndexable(inner, options.botUserId)) return 'ignored';
    await noteChannel(db, { teamId, channelId, kind: e.channel_type });
    await indexMessages(db, [{ teamId, channelId, ts: inner.ts, threadTs: inner.thread_ts, userId: inner.user ?? inner.bot_id, text: inner.text!, edited: Boolean(inner.edited) }]);
    return 'updated';
  }
  if (!e.ts || !isIndexable(e, options.botUserId)) return 'ignored';
  await noteChannel(db, { teamId, channelId, kind: e.channel_type });
  await indexMessages(db, [{ teamId, channelId, ts: e.ts, threadTs: e.thread_ts, userId: e.user ?? e.bot_id, text: e.text! }]);
  return 'indexed';
}

/** The index's row for a message, for tests and the console. */
export async function findIndexedMessage(db: Database, channelId: string, ts: string) {
  const [row] = await db
    .select({ text: indexedMessages.text, edited: indexedMessages.edited, deleted: indexedMessages.deleted, threadTs: indexedMessages.threadTs })
    .from(indexedMessages)
    .where(and(eq(indexedMessages.channelId, channelId), eq(indexedMessages.ts, ts)));
  return row;
}
