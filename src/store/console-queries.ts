/**
 * The operator console's reads: the runs list, one run in full, runs in progress, the queue's state. Read-only, and
 * shaped for the indexes of migration 0007_console_spend_limits (README § Operator console has the query plans on 100,000 runs).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Database } from './database';
import { rowsOf } from './database';
import { approvals, feedback, runSteps, runs, threadFiles, threads } from './schema';
import { and, asc, eq } from 'drizzle-orm';
import { readSlackNames } from './slack-name-store';
import type { CurrentStep } from '../core/run-step';

export { readSlackNames, findSlackIdsByName } from './slack-name-store';

export interface RunFilters {
  channelId?: string;
  userId?: string;
  status?: string;
  model?: string;
  /** Inclusive UTC days, YYYY-MM-DD. */
  from?: string;
  to?: string;
}

/** Where a page ends: the next page starts after this run (newest first). */
export interface RunCursor {
  createdAt: string;
  id: number;
}

export interface RunListRow {
  id: number;
  createdAt: Date;
  channelId: string;
  threadTs: string;
  userId: string | null;
  question: string | null;
  status: string;
  model: string | null;
  durationMs: number | null;
  iterations: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  positive: number;
  negative: number;
}

/** A page of runs, newest first, and the cursor of the next page (undefined on the last). Keyset paging: page 500 costs what page 1 does. */
export async function listRuns(db: Database, filters: RunFilters, page: { after?: RunCursor; limit: number }): Promise<{ rows: RunListRow[]; next?: RunCursor }> {
  const conditions: SQL[] = [];
  if (filters.channelId) conditions.push(sql`r.channel_id = ${filters.channelId}`);
  if (filters.userId) conditions.push(sql`r.trigger_user_id = ${filters.userId}`);
  if (filters.status) conditions.push(sql`r.status = ${filters.status}`);
  if (filters.model) conditions.push(sql`r.model = ${filters.model}`);
  if (filters.from) conditions.push(sql`r.created_at >= (${filters.from}::date at time zone 'UTC')`);
  if (filters.to) conditions.push(sql`r.created_at < ((${filters.to}::date + 1) at time zone 'UTC')`);
  if (page.after) conditions.push(sql`(r.created_at, r.id) < (${page.after.createdAt}::timestamptz, ${page.after.id})`);
  const where = conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
  const result = await db.execute(sql`
    select r.id, r.created_at, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at,
      coalesce(r.channel_id, t.channel_id) as channel_id, t.thread_ts, r.trigger_user_id, r.question, r.status, r.model,
      (extract(epoch from (r.finished_at - r.started_at)) * 1000)::bigint as duration_ms, r.iterations, r.input_tokens, r.output_tokens, r.cost_usd,
      (select count(*) from feedback f where f.run_id = r.id and f.value = 'positive') as positive,
      (select count(*) from feedback f where f.run_id = r.id and f.value = 'negative') as negative
    from (select * from runs r ${where} order by r.created_at desc, r.id desc limit ${page.limit + 1}) r
    join threads t on t.id = r.thread_id
    order by r.created_at desc, r.id desc`);
  const raw = rowsOf<Record<string, unknown>>(result);
  const rows = raw.slice(0, page.limit).map((row) => ({
    id: Number(row.id),
    createdAt: new Date(row.created_at as string),
    channelId: String(row.channel_id ?? ''),
    threadTs: String(row.thread_ts),
    userId: (row.trigger_user_id as string | null) ?? null,
    question: (row.question as string | null) ?? null,
    status: String(row.status),
    model: (row.model as string | null) ?? null,
    durationMs: row.duration_ms === null || row.duration_ms === undefined ? null : Number(row.duration_ms),
    iterations: Number(row.iterations),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    costUsd: Number(row.cost_usd),
    positive: Number(row.positive),
    negative: Number(row.negative),
  }));
  const last = raw[page.limit - 1];
  return { rows, next: raw.length > page.limit && last ? { createdAt: String(last.cursor_at), id: Number(last.id) } : undefined };
}

/** One run with everything the console shows about it. */
export async function readRunDetail(db: Database, runId: number) {
  const [row] = await db.select({ run: runs, thread: threads }).from(runs).innerJoin(threads, eq(threads.id, runs.threadId)).where(eq(runs.id, runId));
  if (!row) return undefined;
  const [steps, runApprovals, votes, files, clock] = await Promise.all([
    db.select().from(runSteps).where(eq(runSteps.runId, runId)).orderBy(asc(runSteps.id)),
    db.select().from(approvals).where(eq(approvals.runId, runId)).orderBy(asc(approvals.id)),
    db.select().from(feedback).where(eq(feedback.runId, runId)),
    db.select({ fileId: threadFiles.fileId, name: threadFiles.name }).from(threadFiles).where(eq(threadFiles.threadId, row.thread.id)),
    db.execute(sql`select clock_timestamp() as now`),
  ]);
  const people = [row.run.triggerUserId, ...runApprovals.flatMap((a) => [a.decidedBy, a.requestedBy]), ...votes.map((v) => v.userId)];
  const names = await readSlackNames(db, [row.run.channelId ?? row.thread.channelId, ...people]);
  return {
    ...row,
    steps,
    approvals: runApprovals,
    feedback: votes,
    /** The thread's file names by file id ("F1" → "release-notes.txt"). */
    fileNames: new Map(files.map((file) => [file.fileId, file.name])),
    /** Names of the channel and the people of this run, by id. */
    names,
    /** The database's clock when read: how long the current step has been going. */
    now: new Date(String(rowsOf<{ now: string | Date }>(clock)[0]?.now ?? new Date().toISOString())),
  };
}

export type RunDetail = NonNullable<Awaited<ReturnType<typeof readRunDetail>>>;

/**
 * One step of one run, with the run's thread and the name of the thread file its `id` argument names (in that
 * thread only): what the console serves a posted chart or file from. Undefined when there is no such step in that
 * run (a step of another run named under this one included). By primary keys.
 */
export async function readRunStep(db: Database, runId: number, stepId: number) {
  const [row] = await db
    .select({ step: runSteps, threadId: runs.threadId, fileName: threadFiles.name })
    .from(runSteps)
    .innerJoin(runs, eq(runs.id, runSteps.runId))
    .leftJoin(threadFiles, and(eq(threadFiles.threadId, runs.threadId), eq(threadFiles.fileId, sql`${runSteps.arguments}->>'id'`)))
    .where(and(eq(runSteps.id, stepId), eq(runSteps.runId, runId)));
  return row;
}

/** Runs not finished yet, oldest first: what the Live page shows. */
export async function listRunsInProgress(db: Database, limit = 100) {
  const result = await db.execute(sql`
    select r.id, r.status, r.question, r.trigger_user_id, coalesce(r.channel_id, t.channel_id) as channel_id, t.thread_ts, r.created_at, r.started_at,
      r.attempts, r.lease_owner, r.iterations, r.current_step, r.current_step_at, clock_timestamp() as db_now,
      (extract(epoch from (clock_timestamp() - coalesce(r.started_at, r.created_at))) * 1000)::bigint as elapsed_ms,
      (select coalesce(json_agg(json_build_object('tool', a.tool, 'createdAt', a.created_at) order by a.id), '[]'::json)
        from approvals a where a.run_id = r.id and a.status = 'pending') as pending_approvals
    from runs r join threads t on t.id = r.thread_id
    where r.status in ('pending', 'running', 'waiting_approval', 'resumable')
    order by r.id limit ${limit}`);
  return rowsOf<Record<string, unknown>>(result).map((row) => ({
    id: Number(row.id),
    status: String(row.status),
    question: (row.question as string | null) ?? null,
    userId: (row.trigger_user_id as string | null) ?? null,
    channelId: String(row.channel_id ?? ''),
    threadTs: String(row.thread_ts),
    attempts: Number(row.attempts),
    leaseOwner: (row.lease_owner as string | null) ?? null,
    elapsedMs: Number(row.elapsed_ms),
    createdAt: new Date(row.created_at as string),
    currentStep: (parseJson(row.current_step) as CurrentStep | null) ?? null,
    currentStepAt: row.current_step_at ? new Date(row.current_step_at as string) : null,
    pendingApprovals: ((parseJson(row.pending_approvals) as Array<{ tool: string; createdAt: string }> | null) ?? []).map((a) => ({ tool: a.tool, createdAt: new Date(a.createdAt) })),
    /** The database's clock when read (the current step's time is measured against it). */
    now: new Date(row.db_now as string),
  }));
}

/** json/jsonb columns come back parsed from one driver and as text from another. */
function parseJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : (value ?? null);
}

/** Runs by unfinished state, and the failures of the last hour: the Health page's queue figures. */
export async function readQueueState(db: Database) {
  const result = await db.execute(sql`
    select status, count(*) as runs, min(created_at) as oldest from runs
    where status in ('pending', 'running', 'waiting_approval', 'resumable') group by status
    union all
    select 'failed_last_hour', count(*), min(created_at) from runs where status = 'failed' and created_at >= now() - interval '1 hour'
    union all
    select 'refused_today', count(*), min(created_at) from runs
      where status = 'refused' and created_at >= (date_trunc('day', now() at time zone 'UTC') at time zone 'UTC')`);
  const counts: Record<string, { runs: number; oldest: Date | null }> = {};
  for (const row of rowsOf<Record<string, unknown>>(result)) {
    counts[String(row.status)] = { runs: Number(row.runs), oldest: row.oldest ? new Date(row.oldest as string) : null };
  }
  const of = (status: string) => counts[status] ?? { runs: 0, oldest: null };
  return {
    pending: of('pending'),
    running: of('running'),
    waitingApproval: of('waiting_approval'),
    resumable: of('resumable'),
    failedLastHour: of('failed_last_hour'),
    refusedToday: of('refused_today'),
  };
}
