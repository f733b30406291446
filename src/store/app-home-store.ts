/**
 * What the App Home shows from the database: a person's own recent questions, and for admins the week's usage.
 * (The operator console has richer usage queries; this is the one small total the home tab needs.)
 */
import { count, desc, eq, gt, sql, sum } from 'drizzle-orm';
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

export interface UsageTotals {
  runs: number;
  failures: number;
  inputTokens: number;
  outputTokens: number;
}

/** Runs, tokens and failed runs since `since` (the home tab asks for the last seven days), across the workspace. */
export async function homeUsageTotalsSince(db: Database, since: Date): Promise<UsageTotals> {
  const [row] = await db
    .select({
      runs: count(),
      failures: sql<number>`count(*) filter (where ${runs.status} = 'failed')`.mapWith(Number),
      inputTokens: sum(runs.inputTokens).mapWith(Number),
      outputTokens: sum(runs.outputTokens).mapWith(Number),
    })
    .from(runs)
    .where(gt(runs.createdAt, since));
  return { runs: row?.runs ?? 0, failures: row?.failures ?? 0, inputTokens: row?.inputTokens ?? 0, outputTokens: row?.outputTokens ?? 0 };
}
