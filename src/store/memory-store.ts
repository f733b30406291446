/**
 * Memories: what people asked threadwise to remember (remember / forget). A channel memory is carried by every
 * request in its channel and by no other; a personal one by its author's requests only. Forgetting a channel memory
 * is for its author or an admin; a personal one is seen, and so forgotten, by its author alone.
 */
import { and, desc, eq, inArray, or } from 'drizzle-orm';
import type { Database } from './database';
import { memories } from './schema';

export type MemoryScope = 'channel' | 'personal';

export interface Memory {
  id: number;
  teamId: string;
  scope: MemoryScope;
  channelId: string;
  authorId: string;
  text: string;
  createdAt: Date;
}

/** Longest text a memory keeps: a fact, a number, a rule of thumb — not a document. */
export const MEMORY_MAX_CHARS = 500;

const columns = {
  id: memories.id,
  teamId: memories.teamId,
  scope: memories.scope,
  channelId: memories.channelId,
  authorId: memories.authorId,
  text: memories.text,
  createdAt: memories.createdAt,
};

export async function saveMemory(db: Database, memory: { teamId: string; scope: MemoryScope; channelId: string; authorId: string; text: string }): Promise<Memory> {
  const text = memory.text.trim();
  if (!text) throw new RangeError('A memory needs some text.');
  if (text.length > MEMORY_MAX_CHARS) throw new RangeError(`A memory holds at most ${MEMORY_MAX_CHARS} characters (this one has ${text.length}).`);
  const [row] = await db.insert(memories).values({ ...memory, text }).returning(columns);
  return row!;
}

/**
 * The memories a request may carry: the channel's own and the asker's personal ones, newest first. The caller
 * (context/memories-block.ts) orders them by relevance and fits them to a budget.
 */
export async function memoriesForRequest(db: Database, request: { teamId: string; channelId: string; userId: string }, limit = 200): Promise<Memory[]> {
  return db
    .select(columns)
    .from(memories)
    .where(
      and(
        eq(memories.teamId, request.teamId),
        or(
          and(eq(memories.scope, 'channel'), eq(memories.channelId, request.channelId)),
          and(eq(memories.scope, 'personal'), eq(memories.authorId, request.userId)),
        ),
      ),
    )
    .orderBy(desc(memories.createdAt), desc(memories.id))
    .limit(limit);
}

/** A person's own personal memories, newest first (App Home). */
export async function personalMemoriesOf(db: Database, teamId: string, userId: string, limit = 50): Promise<Memory[]> {
  return db
    .select(columns)
    .from(memories)
    .where(and(eq(memories.teamId, teamId), eq(memories.scope, 'personal'), eq(memories.authorId, userId)))
    .orderBy(desc(memories.createdAt), desc(memories.id))
    .limit(limit);
}

/** The channel memories of these channels, newest first (App Home: the channels the person can read). */
export async function channelMemoriesOf(db: Database, teamId: string, channelIds: readonly string[], limit = 100): Promise<Memory[]> {
  if (channelIds.length === 0) return [];
  return db
    .select(columns)
    .from(memories)
    .where(and(eq(memories.teamId, teamId), eq(memories.scope, 'channel'), inArray(memories.channelId, [...channelIds])))
    .orderBy(desc(memories.createdAt), desc(memories.id))
    .limit(limit);
}

/** The channels of a workspace that have channel memories (App Home checks which the person may read). */
export async function channelsWithMemories(db: Database, teamId: string, limit = 500): Promise<string[]> {
  const rows = await db
    .selectDistinct({ channelId: memories.channelId })
    .from(memories)
    .where(and(eq(memories.teamId, teamId), eq(memories.scope, 'channel')))
    .limit(limit);
  return rows.map((r) => r.channelId);
}

/** Every memory, newest first (the operator console). */
export async function listMemories(db: Database, limit = 200): Promise<Memory[]> {
  return db.select(columns).from(memories).orderBy(desc(memories.createdAt), desc(memories.id)).limit(limit);
}

export type ForgetOutcome =
  | { outcome: 'forgotten'; memory: Memory }
  /** No such memory for this person: absent, another person's personal one, or another channel's (same answer). */
  | { outcome: 'not_found' }
  /** A channel memory the person can see but did not write, and they are not an admin. */
  | { outcome: 'not_allowed'; memory: Memory };

export interface ForgetRequest {
  teamId: string;
  id: number;
  userId: string;
  isAdmin: boolean;
  /**
   * Channels whose memories this person may see here: the current channel for the forget tool, the channels they can
   * read for App Home. Undefined → any channel of the workspace (a Forget button on the memory's own announcement).
   */
  visibleChannels?: readonly string[];
}

export async function forgetMemory(db: Database, request: ForgetRequest): Promise<ForgetOutcome> {
  const [memory] = await db.select(columns).from(memories).where(and(eq(memories.id, request.id), eq(memories.teamId, request.teamId)));
  if (!memory) return { outcome: 'not_found' };
  if (memory.scope === 'personal') {
    if (memory.authorId !== request.userId) return { outcome: 'not_found' };
  } else {
    if (request.visibleChannels && !request.visibleChannels.includes(memory.channelId)) return { outcome: 'not_found' };
    if (memory.authorId !== request.userId && !request.isAdmin) return { outcome: 'not_allowed', memory };
  }
  const deleted = await db.delete(memories).where(eq(memories.id, memory.id)).returning({ id: memories.id });
  return deleted.length > 0 ? { outcome: 'forgotten', memory } : { outcome: 'not_found' };
}
