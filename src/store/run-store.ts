import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from './database';
import { rowsOf } from './database';
import { runs, runSteps, feedback } from './schema';
import type { CurrentStep, RunStepRecord } from '../core/run-step';
import { causesOf, codeOf } from '../core/errors';

export type RunRow = typeof runs.$inferSelect;

export interface RunRequest {
  threadId: number;
  triggerTs: string;
  triggerUserId?: string;
  teamId?: string;
  channelId?: string;
  /** The first line of the message that asked (for the console). */
  question?: string;
}

/**
 * Records that a message wants an answer. If the thread already has a waiting run, the message folds into it
 * (it will be answered there); otherwise a new pending run is written. Returns the run that will answer.
 */
export async function enqueueRun(db: Database, request: RunRequest): Promise<{ run: RunRow; folded: boolean }> {
  // Each retry needs a claimer to win the race between our insert and our update; five in a row does not happen.
  for (let attempt = 0; attempt < ENQUEUE_ATTEMPTS; attempt++) {
    const inserted = await db
      .insert(runs)
      .values({ ...request, status: 'pending' })
      .onConflictDoNothing()
      .returning();
    if (inserted[0]) return { run: inserted[0], folded: false };

    const [existing] = await db
      .select()
      .from(runs)
      .where(and(eq(runs.threadId, request.threadId), eq(runs.triggerTs, request.triggerTs)));
    if (existing) return { run: existing, folded: false }; // the same message again: already queued

    const [alreadyFolded] = await db
      .select()
      .from(runs)
      .where(and(eq(runs.threadId, request.threadId), sql`${runs.foldedTs} ? ${request.triggerTs}`));
    if (alreadyFolded) return { run: alreadyFolded, folded: true };

    const [folded] = await db
      .update(runs)
      .set({ foldedTs: sql`${runs.foldedTs} || ${JSON.stringify([request.triggerTs])}::jsonb` })
      .where(and(eq(runs.threadId, request.threadId), eq(runs.status, 'pending')))
      .returning();
    if (folded) return { run: folded, folded: true };
    // The waiting run was claimed between our insert and update: try again, now as a new pending run.
  }
  throw new Error(
    `Could not queue an answer for message ${request.triggerTs} in thread ${request.threadId} after ${ENQUEUE_ATTEMPTS} attempts: the waiting run kept being claimed.`,
  );
}

const ENQUEUE_ATTEMPTS = 5;

/**
 * Starts a waiting run for each request, in one statement: one request per thread. Returns, in order, the new
 * run, or undefined where the thread already had one waiting (or the message already asked): `enqueueRun` then
 * folds that message in.
 */
export async function insertWaitingRuns(db: Database, requests: readonly RunRequest[]): Promise<Array<RunRow | undefined>> {
  if (new Set(requests.map((request) => request.threadId)).size !== requests.length) {
    throw new Error('insertWaitingRuns takes one request per thread; later messages of a thread fold in with enqueueRun.');
  }
  if (requests.length === 0) return [];
  // Ordered by thread so that concurrent replicas take the unique index's locks in the same order.
  const values = [...requests].sort((a, b) => a.threadId - b.threadId).map((request) => ({ ...request, status: 'pending' as const }));
  const inserted = await db.insert(runs).values(values).onConflictDoNothing().returning();
  const byThread = new Map(inserted.map((run) => [run.threadId, run]));
  return requests.map((request) => byThread.get(request.threadId));
}

/**
 * Takes the oldest run that is waiting (or whose worker's lease expired) in a thread with no live run, and leases
 * it to `owner`. Safe across replicas: SKIP LOCKED keeps claimers apart, the partial unique index on running runs
 * is the last word on one run per thread.
 */
export async function claimNextRun(db: Database, owner: string, leaseMs: number): Promise<RunRow | undefined> {
  const [claimed] = await claimNextRuns(db, owner, leaseMs, 1);
  return claimed;
}

/** What a claim does to a run: running, under `owner`'s lease, one attempt more. */
const claimedBy = (owner: string, leaseMs: number) => ({
  status: 'running' as const,
  leaseOwner: owner,
  leaseExpiresAt: sql`now() + make_interval(secs => ${leaseMs / 1000})`,
  attempts: sql`${runs.attempts} + 1`,
  // clock_timestamp(), not now(): now() is when the statement began, which may be before it got its locks.
  startedAt: sql`coalesce(${runs.startedAt}, clock_timestamp())`,
  // What a dead attempt was doing is not what this one does.
  currentStep: null,
  currentStepAt: null,
});

/** Runs a claim may take: waiting, or running under an expired lease, in a thread with no live run before them. */
const CLAIMABLE = sql`(r.status in ('pending', 'resumable') or (r.status = 'running' and r.lease_expires_at < now()))
  and not exists (
    select 1 from runs o
    where o.thread_id = r.thread_id and o.id <> r.id and o.status = 'running' and o.lease_expires_at >= now()
  )
  and not exists (
    select 1 from runs earlier
    where earlier.thread_id = r.thread_id and earlier.id < r.id and earlier.status = 'running'
  )`;

/**
 * `claimNextRun` for up to `limit` runs in one statement, oldest first, at most one per thread: a worker with several
 * free slots fills them in one round trip instead of one each (a burst of 1,000 scheduled occurrences was claimed
 * one run per statement, and the claims, not the runs, set the pace). A conflict with another replica's claim on
 * the one-running-run-per-thread index claims nothing this time (the caller looks again at its next wake-up).
 */
export async function claimNextRuns(db: Database, owner: string, leaseMs: number, limit: number): Promise<RunRow[]> {
  try {
    // One statement, returning the rows as claimed: reading them back afterwards could see a later claimer's update.
    const claimed = await db
      .update(runs)
      .set(claimedBy(owner, leaseMs))
      .where(
        limit <= 1
          ? sql`${runs.id} = (select r.id from runs r where ${CLAIMABLE} order by r.id limit 1 for update skip locked)`
          : // Two runs of one thread may both look claimable (neither is running yet): only the older is taken.
            sql`${runs.id} in (
              select distinct on (c.thread_id) c.id from (
                select r.id, r.thread_id from runs r where ${CLAIMABLE} order by r.id limit ${limit} for update skip locked
              ) c
              order by c.thread_id, c.id
            )`,
      )
      .returning();
    return claimed.sort((a, b) => a.id - b.id);
  } catch (error) {
    if (isUniqueViolation(error)) return []; // another replica started one of these threads' runs first
    throw error;
  }
}

/**
 * Extends the lease while work goes on. `held: false` when the lease was lost (another worker took the run over);
 * `cancelRequested` when someone asked, on any replica, to stop this answer.
 */
export async function renewLease(
  db: Database,
  runId: number,
  owner: string,
  leaseMs: number,
): Promise<{ held: boolean; cancelRequested: boolean }> {
  const [row] = await db
    .update(runs)
    .set({ leaseExpiresAt: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
    .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner), eq(runs.status, 'running')))
    .returning({ cancelRequested: runs.cancelRequested });
  return { held: row !== undefined, cancelRequested: row?.cancelRequested ?? false };
}

export interface RunOutcome {
  status: 'done' | 'failed' | 'cancelled';
  error?: string;
  model?: string;
  strategy?: string;
  iterations?: number;
  inputTokens?: number;
  outputTokens?: number;
  skillsLoaded?: string[];
  activity?: string;
  answerTs?: string[];
  /** USD at MODEL_PRICES for this attempt's tokens (added to what a parked part already cost). */
  costUsd?: number;
  /** The answer as posted. */
  answer?: string;
  imagesShown?: string[];
}

/** Finishes a run this owner holds. False if the lease had been lost meanwhile (someone else owns the outcome). */
export async function finishRun(db: Database, runId: number, owner: string, outcome: RunOutcome): Promise<boolean> {
  const updated = await db
    .update(runs)
    .set({
      ...outcome,
      // A run that waited for approval recorded what its first part cost when it parked.
      inputTokens: sql`${runs.inputTokens} + ${outcome.inputTokens ?? 0}`,
      outputTokens: sql`${runs.outputTokens} + ${outcome.outputTokens ?? 0}`,
      costUsd: sql`${runs.costUsd} + ${outcome.costUsd ?? 0}`,
      parkedState: null,
      currentStep: null,
      currentStepAt: null,
      finishedAt: sql`clock_timestamp()`,
      leaseOwner: null,
      leaseExpiresAt: null,
    })
    .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner), eq(runs.status, 'running')))
    .returning({ id: runs.id });
  return updated.length === 1;
}

/**
 * Gives a run back without finishing it (shutdown): the lease ends now, so the next start or another replica
 * resumes it at once instead of waiting for the lease to run out.
 */
export async function releaseLease(db: Database, runId: number, owner: string): Promise<boolean> {
  const updated = await db
    .update(runs)
    .set({ leaseExpiresAt: sql`now()` })
    .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner), eq(runs.status, 'running')))
    .returning({ id: runs.id });
  return updated.length === 1;
}

/**
 * The check right before posting an answer: this owner still holds a live lease and nothing was posted for the run
 * yet. A worker that stalled long enough to lose its lease must not post next to the worker that took over.
 */
export async function mayPostAnswer(db: Database, runId: number, owner: string): Promise<boolean> {
  const result = await db.execute(sql`
    select 1 as ok from runs
    where id = ${runId} and lease_owner = ${owner} and status = 'running' and lease_expires_at > now()
      and answer_ts = '[]'::jsonb`);
  return rowsOf(result).length === 1;
}

/** Marks the answer as posted, before the run is finished, so a resumed run never posts it twice. */
export async function recordAnswerPosted(db: Database, runId: number, answerTs: string[]): Promise<void> {
  // The drafts are the answer now: nothing is left for a next attempt to retire.
  await db.update(runs).set({ answerTs, draftTs: [] }).where(eq(runs.id, runId));
}

/** A message the answer has just started in (see `runs.draftTs`), recorded before any more of the answer goes out. */
export async function recordDraftMessage(db: Database, runId: number, ts: string): Promise<void> {
  await db
    .update(runs)
    .set({ draftTs: sql`${runs.draftTs} || ${JSON.stringify([ts])}::jsonb` })
    .where(eq(runs.id, runId));
}

/** An interrupted attempt's drafts were retired: the attempt now running starts with none. */
export async function clearDraftMessages(db: Database, runId: number): Promise<void> {
  await db.update(runs).set({ draftTs: [] }).where(eq(runs.id, runId));
}

/**
 * What the run is doing now (null: between steps), for the console, written only while this owner holds the run: a
 * write that arrives after the run was parked, finished or taken over changes nothing. `keepSince`: the same step
 * goes on (one of a round's tools finished), so its start time stays.
 */
export async function recordCurrentStep(db: Database, runId: number, owner: string, step: CurrentStep | null, options: { keepSince?: boolean } = {}): Promise<void> {
  await db
    .update(runs)
    .set({ currentStep: step, currentStepAt: step === null ? null : options.keepSince ? sql`coalesce(${runs.currentStepAt}, clock_timestamp())` : sql`clock_timestamp()` })
    .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner), eq(runs.status, 'running')));
}

export async function recordStatusMessage(db: Database, runId: number, ts: string | null): Promise<void> {
  await db.update(runs).set({ statusMessageTs: ts }).where(eq(runs.id, runId));
}

export async function getRun(db: Database, runId: number): Promise<RunRow | undefined> {
  const [row] = await db.select().from(runs).where(eq(runs.id, runId));
  return row;
}

export async function listThreadRuns(db: Database, threadId: number): Promise<RunRow[]> {
  return db.select().from(runs).where(eq(runs.threadId, threadId)).orderBy(asc(runs.id));
}

/** The unfinished run a message belongs to: the question that started it, one folded into it, or its status message. */
export async function findActiveRunByMessage(db: Database, channelId: string, messageTs: string): Promise<RunRow | undefined> {
  const result = await db.execute(sql`
    select r.id from runs r join threads t on t.id = r.thread_id
    where t.channel_id = ${channelId} and r.status in ('pending', 'running', 'waiting_approval', 'resumable')
      and (r.trigger_ts = ${messageTs} or r.status_message_ts = ${messageTs} or r.folded_ts ? ${messageTs})
    order by r.id desc limit 1`);
  const [row] = rowsOf<{ id: number | string }>(result);
  return row ? getRun(db, Number(row.id)) : undefined;
}

/** A waiting run is cancelled at once; a working one is flagged, and its worker stops at the next heartbeat. */
export async function requestCancel(db: Database, runId: number): Promise<'cancelled' | 'flagged' | 'finished'> {
  const [pending] = await db
    .update(runs)
    .set({ status: 'cancelled', finishedAt: sql`clock_timestamp()`, error: 'cancelled by a user', currentStep: null, currentStepAt: null })
    .where(and(eq(runs.id, runId), inArray(runs.status, ['pending', 'waiting_approval', 'resumable'])))
    .returning({ id: runs.id });
  if (pending) return 'cancelled';
  const [running] = await db
    .update(runs)
    .set({ cancelRequested: true })
    .where(and(eq(runs.id, runId), eq(runs.status, 'running')))
    .returning({ id: runs.id });
  return running ? 'flagged' : 'finished';
}

export async function insertRunSteps(db: Database, runId: number, steps: RunStepRecord[]): Promise<void> {
  if (steps.length === 0) return;
  await db.insert(runSteps).values(
    steps.map((step) => ({
      runId,
      kind: step.kind,
      name: step.name,
      iteration: step.iteration,
      arguments: step.arguments === undefined ? null : step.arguments,
      resultChars: step.resultChars,
      inputTokens: step.inputTokens,
      outputTokens: step.outputTokens,
      durationMs: Math.round(step.durationMs),
      error: step.error,
      startedAt: step.startedAt === undefined ? null : new Date(step.startedAt),
      resultPreview: step.resultPreview ?? null,
    })),
  );
}

export async function listRunSteps(db: Database, runId: number) {
  return db.select().from(runSteps).where(eq(runSteps.runId, runId)).orderBy(asc(runSteps.id));
}

export async function saveFeedback(db: Database, runId: number, userId: string, value: 'positive' | 'negative'): Promise<void> {
  await db
    .insert(feedback)
    .values({ runId, userId, value })
    .onConflictDoUpdate({ target: [feedback.runId, feedback.userId], set: { value, createdAt: sql`now()` } });
}

export async function listFeedback(db: Database, runId: number) {
  return db.select().from(feedback).where(eq(feedback.runId, runId));
}

/** Unique-constraint violations look different per driver (PGlite: cause.code, postgres.js: code). */
function isUniqueViolation(error: unknown): boolean {
  return causesOf(error).some((e) => codeOf(e) === '23505');
}
