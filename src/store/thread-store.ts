import { and, eq, sql } from 'drizzle-orm';
import type { Database } from './db';
import { threads } from './schema';

export type ThreadRow = typeof threads.$inferSelect;

/** The thread's row, created on first sight. `engaged` only ever turns on. */
export async function upsertThread(
  db: Database,
  key: { teamId?: string; channelId: string; threadTs: string; engaged?: boolean },
): Promise<ThreadRow> {
  const [row] = await db
    .insert(threads)
    .values({ teamId: key.teamId ?? '', channelId: key.channelId, threadTs: key.threadTs, engaged: key.engaged ?? false })
    .onConflictDoUpdate({
      target: [threads.channelId, threads.threadTs],
      set: {
        engaged: sql`${threads.engaged} or excluded.engaged`,
        updatedAt: sql`now()`,
      },
    })
    .returning();
  return row!;
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

export async function saveThreadSummary(db: Database, id: number, summary: string, coversTurns: number): Promise<void> {
  await db.update(threads).set({ summary, summaryTurns: coversTurns }).where(eq(threads.id, id));
}
