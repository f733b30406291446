/**
 * The part of parking a run that is the same whatever it waits for (a person's approval, a person's sign-in): the
 * run this owner holds becomes waiting_approval with its turn saved, gives up its lease, counts its attempts afresh
 * (waiting is not an interruption) and adds what it cost so far to its totals. Runs inside the caller's transaction,
 * which then records what the run waits for.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from './database';
import { runs } from './schema';
import type { CurrentStep } from '../core/run-step';

/** What the run cost so far; added to its totals. */
export interface RunCostsSoFar {
  model?: string;
  strategy?: string;
  inputTokens?: number;
  outputTokens?: number;
  iterations?: number;
  costUsd?: number;
}

export interface ParkedRunUpdate {
  runId: number;
  /** The replica that holds the run's lease: a run another replica took over is left alone. */
  owner: string;
  turn: unknown;
  costs: RunCostsSoFar;
  /** The console's "now" for the waiting run; null when the wait explains itself (its approvals). */
  currentStep: CurrentStep | null;
}

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/** False when the lease was lost meanwhile (another worker owns the run now). */
export async function markRunParked(tx: Transaction, update: ParkedRunUpdate): Promise<boolean> {
  const [parked] = await tx
    .update(runs)
    .set({
      status: 'waiting_approval',
      parkedState: update.turn,
      leaseOwner: null,
      leaseExpiresAt: null,
      attempts: 0,
      draftTs: [],
      currentStep: update.currentStep,
      currentStepAt: update.currentStep ? sql`clock_timestamp()` : null,
      model: update.costs.model,
      strategy: update.costs.strategy,
      iterations: update.costs.iterations ?? 0,
      inputTokens: sql`${runs.inputTokens} + ${update.costs.inputTokens ?? 0}`,
      outputTokens: sql`${runs.outputTokens} + ${update.costs.outputTokens ?? 0}`,
      costUsd: sql`${runs.costUsd} + ${update.costs.costUsd ?? 0}`,
    })
    .where(and(eq(runs.id, update.runId), eq(runs.leaseOwner, update.owner), eq(runs.status, 'running')))
    .returning({ id: runs.id });
  return parked !== undefined;
}

/**
 * waiting_approval → resumable for the runs among these that wait for nothing any more: no decision and no sign-in
 * pending. Conditional, so of the replicas that settle a run's last wait at once exactly one makes it resumable.
 */
export async function makeResumable(db: Database, runIds: number[]): Promise<number[]> {
  const rows = await db
    .update(runs)
    .set({ status: 'resumable' })
    .where(
      and(
        inArray(runs.id, runIds),
        eq(runs.status, 'waiting_approval'),
        sql`not exists (select 1 from approvals a where a.run_id = ${runs.id} and a.status = 'pending')`,
        sql`not exists (select 1 from oauth_sign_ins s where s.run_id = ${runs.id} and s.status = 'pending')`,
      ),
    )
    .returning({ id: runs.id });
  return rows.map((row) => row.id);
}
