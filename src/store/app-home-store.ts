/**
 * What the App Home shows from the database besides usage (usage-store.ts): a person's own recent questions.
 */
import { desc, eq } from 'drizzle-orm';
import type { Database } from './database';
import { runs, threads } from './schema';

export interface RecentQuestion {
  runId: number;
  channelId: string;
  threadTs: string;
  triggerTs: string;
  status: string;
  createdAt: Date;
}

/** The person's latest questions (runs they started), newest first. */
export async function recentQuestionsOf(db: Database, userId: string, limit = 5): Promise<RecentQuestion[]> {
  return db
    .select({
      runId: runs.id,
      channelId: threads.channelId,
      threadTs: threads.threadTs,
      triggerTs: runs.triggerTs,
      status: runs.status,
      createdAt: runs.createdAt,
    })
    .from(runs)
    .innerJoin(threads, eq(threads.id, runs.threadId))
    .where(eq(runs.triggerUserId, userId))
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit);
}
