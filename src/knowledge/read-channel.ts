/**
 * read_channel underneath: a channel's messages since a date, each thread with its replies, oldest first and
 * bounded — only for a channel the asker may read; any other is answered exactly as a channel threadwise does not
 * know.
 */
import { and, asc, eq, gte, inArray, lt } from 'drizzle-orm';
import { mapConcurrently } from '../core/map-concurrently';
import type { Database } from '../store/database';
import { indexedMessages } from '../store/schema';
import { findReadableChannel, readableChannels, type Asker, type ReadableChannel } from './access';
import type { KnowledgeDirectory } from './directory';
import { tsToDate } from './message-text';

export interface ChannelMessage {
  ts: string;
  threadTs?: string;
  userId?: string;
  author: string;
  postedAt: Date;
  text: string;
  edited: boolean;
}

interface ChannelThread {
  /** Undefined when the thread started before `since` and its parent is no longer kept. */
  parent?: ChannelMessage;
  threadTs: string;
  /** True when the parent was posted before `since` (shown for context). */
  parentBefore: boolean;
  replies: ChannelMessage[];
}

export type ChannelReading =
  | { kind: 'unreadable_channel'; channel: string }
  | {
      kind: 'messages';
      channel: ReadableChannel;
      threads: ChannelThread[];
      /** Messages read in the window (a cut one included). */
      count: number;
      /** Set when the bound was reached: the first message not shown, to continue from. */
      continueFrom?: Date;
    };

export interface ReadChannelRequest {
  asker: Asker;
  channel: string;
  since: Date;
  until?: Date;
  /** Most messages read (parents and replies). Default 300. */
  maxMessages?: number;
}

export async function readChannel(db: Database, directory: KnowledgeDirectory, request: ReadChannelRequest): Promise<ChannelReading> {
  const readable = await readableChannels(db, directory, request.asker);
  const channel = findReadableChannel(readable, request.channel);
  if (!channel) return { kind: 'unreadable_channel', channel: request.channel };
  const max = request.maxMessages ?? 300;
  const conditions = [eq(indexedMessages.channelId, channel.id), eq(indexedMessages.deleted, false), gte(indexedMessages.postedAt, request.since)];
  if (request.until) conditions.push(lt(indexedMessages.postedAt, request.until));
  const rows = await db
    .select({ ts: indexedMessages.ts, threadTs: indexedMessages.threadTs, userId: indexedMessages.userId, text: indexedMessages.text, edited: indexedMessages.edited, postedAt: indexedMessages.postedAt })
    .from(indexedMessages)
    .where(and(...conditions))
    .orderBy(asc(indexedMessages.postedAt), asc(indexedMessages.ts))
    .limit(max + 1);
  const shown = rows.slice(0, max);
  const continueFrom = rows.length > max ? rows[max]!.postedAt : undefined;

  // Replies whose thread began before the window: their parent is shown for context.
  const inWindow = new Set(shown.map((r) => r.ts));
  const missingParents = [...new Set(shown.flatMap((r) => (r.threadTs && !inWindow.has(r.threadTs) ? [r.threadTs] : [])))];
  const earlier = missingParents.length
    ? await db
        .select({ ts: indexedMessages.ts, threadTs: indexedMessages.threadTs, userId: indexedMessages.userId, text: indexedMessages.text, edited: indexedMessages.edited, postedAt: indexedMessages.postedAt })
        .from(indexedMessages)
        .where(and(eq(indexedMessages.channelId, channel.id), eq(indexedMessages.deleted, false), inArray(indexedMessages.ts, missingParents)))
    : [];

  const userIds = [...new Set([...shown, ...earlier].flatMap((r) => (r.userId ? [r.userId] : [])))];
  const names = new Map(await mapConcurrently(userIds, 8, async (id) => [id, (await directory.userName(id)) ?? id] as const));
  const toMessage = (r: (typeof rows)[number]): ChannelMessage => ({
    ts: r.ts,
    threadTs: r.threadTs ?? undefined,
    userId: r.userId ?? undefined,
    author: (r.userId && names.get(r.userId)) || 'someone',
    postedAt: r.postedAt,
    text: r.text,
    edited: r.edited,
  });

  const threads = new Map<string, ChannelThread>();
  const parentsBefore = new Map(earlier.map((r) => [r.ts, toMessage(r)]));
  for (const row of shown) {
    const key = row.threadTs ?? row.ts;
    let thread = threads.get(key);
    if (!thread) {
      const before = row.threadTs ? parentsBefore.get(row.threadTs) : undefined;
      thread = { threadTs: key, parentBefore: Boolean(row.threadTs), replies: [], ...(before ? { parent: before } : {}) };
      threads.set(key, thread);
    }
    if (row.threadTs) thread.replies.push(toMessage(row));
    else thread.parent = toMessage(row);
  }
  // A thread sits where its parent (or its first reply in the window) was posted.
  const ordered = [...threads.values()].sort((a, b) => firstTime(a) - firstTime(b));
  return { kind: 'messages', channel, threads: ordered, count: shown.length, ...(continueFrom ? { continueFrom } : {}) };
}

function firstTime(thread: ChannelThread): number {
  if (thread.parent && !thread.parentBefore) return thread.parent.postedAt.getTime();
  return thread.replies[0]?.postedAt.getTime() ?? tsToDate(thread.threadTs).getTime();
}
