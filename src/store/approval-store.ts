/**
 * Tool calls waiting for a person, durably: a run parks (no lease, its turn saved), people decide on any replica
 * (each approval decided once), and the run becomes resumable once every call it waits for is decided.
 */
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Database } from './database';
import { makeResumable, markRunParked, type RunCostsSoFar } from './park-run';
import { approvals } from './schema';

export type ApprovalRow = typeof approvals.$inferSelect;

interface ApprovalRequest {
  callId: string;
  tool: string;
  server?: string;
  action: string;
  arguments: unknown;
  hints?: { readOnly?: boolean; destructive?: boolean };
}

export interface ParkRequest {
  runId: number;
  owner: string;
  /** The agent's turn, to carry on from. */
  turn: unknown;
  calls: ApprovalRequest[];
  requestedBy?: string;
  channelId: string;
  threadTs: string;
  expiresInMs: number;
  /** What the run cost so far; added to its totals. */
  costs: RunCostsSoFar;
}

/**
 * Parks a run this owner holds: waiting_approval, lease given up, turn saved, one approval row per waiting call.
 * Undefined when the lease was lost meanwhile (another worker owns the run now).
 */
export async function parkRun(db: Database, request: ParkRequest): Promise<ApprovalRow[] | undefined> {
  return db.transaction(async (tx) => {
    const parked = await markRunParked(tx, { runId: request.runId, owner: request.owner, turn: request.turn, costs: request.costs, currentStep: null });
    if (!parked) return undefined;
    return tx
      .insert(approvals)
      .values(
        request.calls.map((call) => ({
          runId: request.runId,
          callId: call.callId,
          tool: call.tool,
          server: call.server,
          action: call.action,
          arguments: call.arguments ?? null,
          hints: call.hints,
          requestedBy: request.requestedBy,
          channelId: request.channelId,
          threadTs: request.threadTs,
          expiresAt: sql`now() + make_interval(secs => ${request.expiresInMs / 1000})`,
        })),
      )
      .onConflictDoNothing()
      .returning();
  });
}

export async function recordApprovalMessage(db: Database, approvalId: number, messageTs: string): Promise<void> {
  await db.update(approvals).set({ messageTs }).where(eq(approvals.id, approvalId));
}

export async function getApproval(db: Database, approvalId: number): Promise<ApprovalRow | undefined> {
  const [row] = await db.select().from(approvals).where(eq(approvals.id, approvalId));
  return row;
}

export async function listRunApprovals(db: Database, runId: number): Promise<ApprovalRow[]> {
  return db.select().from(approvals).where(eq(approvals.runId, runId)).orderBy(approvals.id);
}

/**
 * Decides a waiting call, once: of two clicks (on one replica or two) exactly one gets `decided`; the other gets
 * the row as the first left it. The run becomes resumable with the last decision it waited for.
 */
export async function decideApproval(
  db: Database,
  approvalId: number,
  decision: 'approved' | 'denied',
  userId: string,
): Promise<{ decided: true; approval: ApprovalRow; runResumable: boolean } | { decided: false; approval: ApprovalRow | undefined }> {
  return db.transaction(async (tx) => {
    const [won] = await tx
      .update(approvals)
      .set({ status: decision, decidedBy: userId, decidedAt: sql`clock_timestamp()` })
      .where(and(eq(approvals.id, approvalId), eq(approvals.status, 'pending'), sql`${approvals.expiresAt} > now()`))
      .returning();
    if (!won) {
      const [current] = await tx.select().from(approvals).where(eq(approvals.id, approvalId));
      return { decided: false as const, approval: current };
    }
    const resumable = await makeResumable(tx as unknown as Database, [won.runId]);
    return { decided: true as const, approval: won, runResumable: resumable.includes(won.runId) };
  });
}

/** Calls nobody decided in time: expired, and their runs resumable. Safe on every replica at once. */
export async function expireApprovals(db: Database): Promise<ApprovalRow[]> {
  return db.transaction(async (tx) => {
    const expired = await tx
      .update(approvals)
      .set({ status: 'expired', decidedAt: sql`clock_timestamp()` })
      .where(and(eq(approvals.status, 'pending'), lt(approvals.expiresAt, sql`now()`)))
      .returning();
    if (expired.length > 0) await makeResumable(tx as unknown as Database, [...new Set(expired.map((row) => row.runId))]);
    return expired;
  });
}

/** Claims an approved call's one execution: false when an earlier attempt claimed it already. */
export async function claimApprovedCall(db: Database, approvalId: number): Promise<boolean> {
  const claimed = await db
    .update(approvals)
    .set({ executedAt: sql`clock_timestamp()` })
    .where(and(eq(approvals.id, approvalId), eq(approvals.status, 'approved'), isNull(approvals.executedAt)))
    .returning({ id: approvals.id });
  return claimed.length === 1;
}

