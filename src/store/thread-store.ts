import { and, eq, sql } from 'drizzle-orm';
import type { Database } from './database';
import { runs, threads } from './schema';

export type ThreadRow = typeof threads.$inferSelect;

export interface ThreadKey {
  teamId?: string;
  channelId: string;
  threadTs: string;
  engaged?: boolean;
}

/** The thread's row, created on first sight. `engaged` only ever turns on. */
export async function upsertThread(db: Database, key: ThreadKey): Promise<ThreadRow> {
  const [row] = await upsertThreads(db, [key]);
  return row!;
}

/**
 * Each key's thread row, in order, created on first sight, in one statement. A thread named several times is
 * written once, engaged if any of its keys engages it.
 */
export async function upsertThreads(db: Database, keys: readonly ThreadKey[]): Promise<ThreadRow[]> {
  const merged = new Map<string, ThreadKey>();
  for (const key of keys) {
    const id = threadKeyOf(key);
    const seen = merged.get(id);
    merged.set(id, { ...(seen ?? key), engaged: Boolean(seen?.engaged || key.engaged) });
  }
  if (merged.size === 0) return [];
  // Rows in one order for every replica, so that two concurrent bursts cannot deadlock on the unique index.
  const values = [...merged.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, key]) => ({ teamId: key.teamId ?? '', channelId: key.channelId, threadTs: key.threadTs, engaged: key.engaged ?? false }));
  const rows = await db
    .insert(threads)
    .values(values)
    .onConflictDoUpdate({
      target: [threads.channelId, threads.threadTs],
      set: {
        engaged: sql`${threads.engaged} or excluded.engaged`,
        updatedAt: sql`now()`,
      },
    })
    .returning();
  const byKey = new Map(rows.map((row) => [threadKeyOf(row), row]));
  return keys.map((key) => byKey.get(threadKeyOf(key))!);
}

export interface ThreadFacts {
  engaged: boolean;
  /** A run is waiting to start: a new message would fold into it rather than start one. */
  hasWaitingRun: boolean;
}

/** What the intake needs to know of threads it is about to write to, by `threadKeyOf`; unknown threads are absent. */
export async function readThreadFacts(db: Database, keys: readonly ThreadKey[]): Promise<Map<string, ThreadFacts>> {
  if (keys.length === 0) return new Map();
  const wanted = sql.join(
    keys.map((key) => sql`(${key.channelId}, ${key.threadTs})`),
    sql`, `,
  );
  const rows = await db
    .select({
      channelId: threads.channelId,
      threadTs: threads.threadTs,
      engaged: threads.engaged,
      hasWaitingRun: sql<boolean>`exists (select 1 from ${runs} where ${runs.threadId} = ${threads.id} and ${runs.status} = 'pending')`,
    })
    .from(threads)
    .where(sql`(${threads.channelId}, ${threads.threadTs}) in (${wanted})`);
  return new Map(rows.map((row) => [threadKeyOf(row), { engaged: row.engaged, hasWaitingRun: Boolean(row.hasWaitingRun) }]));
}

/** One string per thread, for maps keyed by thread. */
export function threadKeyOf(key: { channelId: string; threadTs: string }): string {
  return `${key.channelId}/${key.threadTs}`;
}

export async function findThread(db: Database, channelId: string, threadTs: string): Promise<ThreadRow | undefined> {
  const [row] = await db
    .select()
    .from(threads)
    .where(and(eq(threads.channelId, channelId), eq(threads.threadTs, threadTs)));
  return row;
}

export async function getThreadById(db: Database, id: number): Promise<ThreadRow | undefined> {
  const [row] = await db.select().from(threads).where(eq(threads.id, id));
  return row;
}

