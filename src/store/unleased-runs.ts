/**
 * Runs that no other process may take over: a terminal's question is answered by the terminal that asked, or not
 * at all. Such a run is born running, owned by its process and without a lease (lease_expires_at null), so
 * claimNextRun — which takes over only expired leases — never hands it to a Slack worker sharing the database, and
 * the process needs no heartbeat. It is finished with finishRun like any run, so the run records show it.
 */
import { and, eq, isNull, like, lt, sql } from 'drizzle-orm';
import type { Database } from './database';
import { rowsOf } from './database';
import { runs } from './schema';
import type { RunRow } from './run-store';

export interface UnleasedRunRequest {
  threadId: number;
  triggerTs: string;
  triggerUserId?: string;
  /** This process: only it may post the run's answer or finish it. */
  owner: string;
}

export async function startUnleasedRun(db: Database, request: UnleasedRunRequest): Promise<RunRow> {
  const [row] = await db
    .insert(runs)
    .values({
      threadId: request.threadId,
      triggerTs: request.triggerTs,
      triggerUserId: request.triggerUserId,
      status: 'running',
      leaseOwner: request.owner,
      attempts: 1,
      startedAt: sql`clock_timestamp()`,
    })
    .returning();
  return row!;
}

/** The check before the answer goes out: still this owner's, still running, nothing posted yet. */
export async function mayPostUnleasedRun(db: Database, runId: number, owner: string): Promise<boolean> {
  const result = await db.execute(sql`
    select 1 as ok from runs
    where id = ${runId} and lease_owner = ${owner} and status = 'running' and lease_expires_at is null
      and answer_ts = '[]'::jsonb`);
  return rowsOf(result).length === 1;
}

/**
 * Closes, as failed, the unleased runs of owners named `${ownerPrefix}…` that started before `startedBefore`: their
 * process died (killed, machine off) before it could finish them, and nothing else ever will. Returns how many.
 */
export async function failAbandonedUnleasedRuns(db: Database, ownerPrefix: string, startedBefore: Date, error: string): Promise<number> {
  const closed = await db
    .update(runs)
    .set({ status: 'failed', error, finishedAt: sql`clock_timestamp()`, leaseOwner: null })
    .where(
      and(
        eq(runs.status, 'running'),
        isNull(runs.leaseExpiresAt),
        like(runs.leaseOwner, `${ownerPrefix.replace(/[\\%_]/g, '\\$&')}%`),
        lt(runs.startedAt, startedBefore),
      ),
    )
    .returning({ id: runs.id });
  return closed.length;
}
