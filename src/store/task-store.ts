/**
 * Scheduled tasks as stored (the schedule's logic is src/tasks/'s; it hands in what it computes). Time is always a
 * parameter (the caller's Clock), never the database's now(), so tests move it by hand.
 *
 * Exactly once: an occurrence is claimed by inserting its (task, due time) row — ON CONFLICT DO NOTHING — in the
 * transaction that advances the task's next_due_at and (through `enqueue`) writes the run that answers it. Two
 * replicas, or a restart, can therefore never make two runs of one due time: the second finds the task advanced
 * (or locked: SKIP LOCKED) or the key taken. Due tasks are claimed in batches, one transaction per batch, with the
 * same key per (task, due time): a batch commits or rolls back whole.
 */
import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Database } from './database';
import { rowsOf } from './database';
import { runs, scheduledTasks, scheduledTasksVersion, taskOccurrences } from './schema';

export type TaskRow = typeof scheduledTasks.$inferSelect;
export type OccurrenceRow = typeof taskOccurrences.$inferSelect;
type TaskState = TaskRow['state'];

export interface NewTask {
  teamId: string;
  channelId: string;
  threadTs: string;
  ownerId: string;
  prompt: string;
  scheduleKind: 'once' | 'cron';
  schedule: string;
  timeZone: string;
  nextDueAt: Date;
}

/** Tasks that count toward the per-person cap. */
const OPEN_STATES: TaskState[] = ['active', 'paused'];

/**
 * Writes a new active task unless its owner already has `maxPerPerson` open (active or paused) ones. Counted under
 * a per-owner lock held to the end of the transaction, so two requests at once cannot both squeeze under the cap.
 */
export async function insertTask(
  db: Database,
  task: NewTask,
  options: { maxPerPerson: number; now: Date },
): Promise<{ ok: true; task: TaskRow } | { ok: false; open: number }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`threadwise tasks ${task.ownerId}`}))`);
    const open = await countOpenTasks(tx as unknown as Database, task.ownerId);
    if (open >= options.maxPerPerson) return { ok: false as const, open };
    const [row] = await tx
      .insert(scheduledTasks)
      .values({ ...task, state: 'active', changedBy: task.ownerId, createdAt: options.now, updatedAt: options.now })
      .returning();
    await raiseTasksVersion(tx as unknown as Database);
    return { ok: true as const, task: row! };
  });
}

export async function countOpenTasks(db: Database, ownerId: string): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(scheduledTasks)
    .where(and(eq(scheduledTasks.ownerId, ownerId), inArray(scheduledTasks.state, OPEN_STATES)));
  return Number(row?.count ?? 0);
}

async function raiseTasksVersion(db: Database): Promise<void> {
  await db
    .insert(scheduledTasksVersion)
    .values({ id: 1, version: 1 })
    .onConflictDoUpdate({ target: scheduledTasksVersion.id, set: { version: sql`${scheduledTasksVersion.version} + 1` } });
}

/** Raised by every create, delete, pause and resume, on any replica: a primary-key lookup tells a scheduler to look again. */
export async function tasksVersionOf(db: Database): Promise<number> {
  const [row] = await db.select({ version: scheduledTasksVersion.version }).from(scheduledTasksVersion).where(eq(scheduledTasksVersion.id, 1));
  return Number(row?.version ?? 0);
}

/** The version and the earliest due time of an active task, in one statement (the partial index answers the min). */
export async function readTaskWakeUp(db: Database): Promise<{ version: number; nextDueAt: Date | undefined }> {
  const result = await db.execute(sql`
    select coalesce((select version from scheduled_tasks_version where id = 1), 0) as version,
           (select min(next_due_at) from scheduled_tasks where state = 'active') as next_due`);
  const [row] = rowsOf<{ version: number | string; next_due: Date | string | null }>(result);
  return { version: Number(row?.version ?? 0), nextDueAt: row?.next_due ? new Date(row.next_due) : undefined };
}

export interface ClaimedOccurrence {
  occurrence: OccurrenceRow;
  task: TaskRow;
}

export interface ClaimOptions {
  now: Date;
  /** This process (the occurrences' claimed_by). */
  owner: string;
  /** Tasks claimed in this one transaction at most (the earliest due first). */
  limit: number;
  /** The task's next due time after this one (computed from `now`, so missed ones are skipped); undefined: none left. */
  nextDue(task: TaskRow): Date | undefined;
  /**
   * Writes what answers the new occurrences, inside the claim's transaction (`tx`): their run rows. Returns, in the
   * same order, each one's run id (recorded on the occurrence), or undefined for one that cannot start yet: it is
   * taken back and its task stays due, untouched. Throwing rolls the whole batch back. Without it, occurrences are
   * claimed with no run.
   */
  enqueue?(claimed: readonly ClaimedOccurrence[], tx: Database): Promise<ReadonlyArray<number | undefined>>;
}

export interface ClaimResult {
  /** Occurrences claimed, each with its task as advanced. */
  claimed: ClaimedOccurrence[];
  /** Tasks whose (task, due time) key was taken already: they were only advanced. */
  duplicates: TaskRow[];
  /** Tasks whose occurrence `enqueue` took back: still due. */
  deferred: number[];
}

/**
 * Claims the occurrences of up to `limit` due tasks and advances those tasks, in one transaction of a fixed number of
 * statements however many there are (see the file's comment): every statement is a round trip — to the embedded
 * database's thread or to PostgreSQL — and one transaction of eight statements per occurrence made 1,000 tasks due
 * at once take 17 s to claim. Tasks another replica has locked are skipped (SKIP LOCKED): it claims those.
 */
export async function claimDueOccurrences(db: Database, options: ClaimOptions): Promise<ClaimResult> {
  return db.transaction(async (tx) => {
    const txDb = tx as unknown as Database;
    const due = await tx
      .select()
      .from(scheduledTasks)
      .where(and(eq(scheduledTasks.state, 'active'), lte(scheduledTasks.nextDueAt, options.now)))
      .orderBy(asc(scheduledTasks.nextDueAt), asc(scheduledTasks.id))
      .limit(options.limit)
      .for('update', { skipLocked: true });
    if (due.length === 0) return { claimed: [], duplicates: [], deferred: [] };
    const inserted = await tx
      .insert(taskOccurrences)
      .values(
        due.map((task) => ({
          taskId: task.id,
          dueAt: task.nextDueAt!,
          claimedAt: options.now,
          claimedBy: options.owner,
          lateMs: Math.max(0, options.now.getTime() - task.nextDueAt!.getTime()),
        })),
      )
      .onConflictDoNothing()
      .returning();
    const insertedFor = new Map(inserted.map((occurrence) => [occurrence.taskId, occurrence]));
    const fresh = due.flatMap((task) => {
      const occurrence = insertedFor.get(task.id);
      return occurrence ? [{ occurrence, task }] : [];
    });

    const runIds = options.enqueue && fresh.length > 0 ? await options.enqueue(fresh, txDb) : [];
    const takenBack = options.enqueue ? fresh.filter((_, i) => runIds[i] === undefined) : [];
    if (takenBack.length > 0) {
      await tx.delete(taskOccurrences).where(inArray(taskOccurrences.id, takenBack.map(({ occurrence }) => occurrence.id)));
    }
    const deferred = new Set(takenBack.map(({ task }) => task.id));
    const advancing = due.filter((task) => !deferred.has(task.id));
    const advanced = await advanceTasks(txDb, advancing, options);
    const withRuns = fresh.flatMap(({ occurrence }, i) => (runIds[i] === undefined ? [] : [{ id: occurrence.id, runId: runIds[i]! }]));
    if (withRuns.length > 0) {
      await tx
        .update(taskOccurrences)
        .set({ runId: sql`case ${taskOccurrences.id} ${sql.join(withRuns.map(({ id, runId }) => sql`when ${id} then ${runId}::bigint`), sql` `)} end` })
        .where(inArray(taskOccurrences.id, withRuns.map(({ id }) => id)));
    }
    const runIdOf = new Map(withRuns.map(({ id, runId }) => [id, runId]));
    const advancedById = new Map(advanced.map((task) => [task.id, task]));
    return {
      claimed: fresh
        .filter(({ task }) => !deferred.has(task.id))
        .map(({ occurrence, task }) => ({ occurrence: { ...occurrence, runId: runIdOf.get(occurrence.id) ?? null }, task: advancedById.get(task.id)! })),
      duplicates: due.filter((task) => !insertedFor.has(task.id)).map((task) => advancedById.get(task.id)!),
      deferred: [...deferred],
    };
  });
}

/** Each task to its next due time (or done, with none left), in one statement. */
async function advanceTasks(db: Database, tasks: readonly TaskRow[], options: Pick<ClaimOptions, 'now' | 'nextDue'>): Promise<TaskRow[]> {
  if (tasks.length === 0) return [];
  const next = tasks.map((task) => ({ id: task.id, at: options.nextDue(task)?.toISOString() ?? null }));
  return db
    .update(scheduledTasks)
    .set({
      nextDueAt: sql`case ${scheduledTasks.id} ${sql.join(next.map(({ id, at }) => sql`when ${id} then ${at}::timestamptz`), sql` `)} end`,
      state: sql`case ${scheduledTasks.id} ${sql.join(next.map(({ id, at }) => sql`when ${id} then ${at === null ? 'done' : 'active'}`), sql` `)} end`,
      updatedAt: options.now,
    })
    .where(inArray(scheduledTasks.id, next.map(({ id }) => id)))
    .returning();
}

/**
 * How an occurrence ended: ok; failed (counts toward the pause after repeated failures); skipped (not run to the end,
 * and not the task's fault — its owner's daily spend limit was reached, or a person stopped it: counts neither way).
 */
export type OccurrenceOutcome = NonNullable<OccurrenceRow['result']>;

export type OccurrenceResult = {
  taskId: number;
  /** The run that answered it: picks the occurrence exactly; without it, the task's latest unfinished one. */
  runId?: number;
  /** Why it failed or was skipped. */
  error?: string;
  now: Date;
} & (
  | {
      outcome: 'failed';
      /** Consecutive failures after which the task pauses itself. */
      pauseAfterFailures: number;
    }
  | { outcome: 'ok' | 'skipped'; pauseAfterFailures?: number }
);

/**
 * Records how an occurrence's run ended (once per occurrence: a second report of the same one counts nothing).
 * A failure raises the task's consecutive failures, a success resets them; the Nth failure in a row pauses the task
 * (and raises the version, so every replica stops scheduling it). One statement, so it is one round trip for each of
 * a burst of occurrences, and all of it or nothing is written. `task` comes back when this report paused it.
 */
export async function recordOccurrenceResult(
  db: Database,
  result: OccurrenceResult,
): Promise<{ counted: boolean; paused: boolean; task?: TaskRow }> {
  const failed = result.outcome === 'failed';
  const error = result.outcome === 'ok' ? null : (result.error ?? result.outcome).slice(0, 500);
  const now = result.now.toISOString();
  const which = result.runId !== undefined ? sql`run_id = ${result.runId}` : sql`result is null`;
  const failures =
    result.outcome === 'ok' ? sql`0` : result.outcome === 'failed' ? sql`t.consecutive_failures + 1` : sql`t.consecutive_failures`;
  // Pauses now: an active task whose failures in a row reach the limit with this one.
  const pausing = failed ? sql`(t.state = 'active' and t.consecutive_failures + 1 >= ${result.pauseAfterFailures}::int)` : sql`false`;
  const rows = rowsOf<{ id: number | string; paused: boolean }>(
    await db.execute(sql`
      with prior as (
        select id, state from scheduled_tasks where id = ${result.taskId}
      ),
      occurrence as (
        update task_occurrences set result = ${result.outcome}, error = ${error}, finished_at = ${now}::timestamptz
        where id = (select id from task_occurrences where task_id = ${result.taskId} and ${which} order by due_at desc limit 1)
          and result is null
        returning task_id
      ),
      counted as (
        update scheduled_tasks t set
          consecutive_failures = ${failures},
          last_result = ${result.outcome}, last_error = ${error}, last_run_at = ${now}::timestamptz, updated_at = ${now}::timestamptz,
          state = case when ${pausing} then 'paused' else t.state end,
          paused_reason = case when ${pausing} then 'failures' else t.paused_reason end
        from occurrence o where t.id = o.task_id
        returning t.id, t.state, t.paused_reason
      ),
      paused as (
        select c.id from counted c join prior p on p.id = c.id where p.state = 'active' and c.state = 'paused' and c.paused_reason = 'failures'
      ),
      version as (
        insert into scheduled_tasks_version (id, version) select 1, 1 from paused
        on conflict (id) do update set version = scheduled_tasks_version.version + 1
      )
      select c.id, exists (select 1 from paused) as paused from counted c`),
  );
  const [row] = rows;
  // Nothing unfinished to report on, or this occurrence was reported already: nothing counted twice.
  if (!row) return { counted: false, paused: false };
  if (!row.paused) return { counted: true, paused: false };
  return { counted: true, paused: true, task: await getTask(db, result.taskId) };
}

export interface StateChange {
  taskId: number;
  /** Who asks for it (recorded as changed_by). */
  actor: string;
  to: 'deleted' | 'paused' | 'active';
  now: Date;
  /** Whether `actor` may (src/tasks/authorize.ts); a refusal's sentence comes back as is. */
  authorize(task: TaskRow): { allowed: true } | { allowed: false; message: string };
  /** Resuming: the next due time from now on; undefined (a one-off whose time passed) refuses the resume. */
  nextDue?(task: TaskRow): Date | undefined;
}

export type StateChangeResult = { ok: true; task: TaskRow; changed: boolean } | { ok: false; message: string; task?: TaskRow };

/** Deletes, pauses or resumes a task for a person allowed to, in one transaction; raises the version. */
export async function changeTaskState(db: Database, change: StateChange): Promise<StateChangeResult> {
  return db.transaction(async (tx) => {
    const [task] = await tx.select().from(scheduledTasks).where(eq(scheduledTasks.id, change.taskId)).for('update');
    if (!task || task.state === 'deleted') return { ok: false as const, message: 'That task no longer exists: it was deleted.' };
    const permission = change.authorize(task);
    if (!permission.allowed) return { ok: false as const, message: permission.message, task };
    if (task.state === 'done' && change.to !== 'deleted') return { ok: false as const, message: 'That task has already run and has nothing left to do.', task };
    if (task.state === change.to) return { ok: true as const, task, changed: false };

    let set: Partial<typeof scheduledTasks.$inferInsert>;
    if (change.to === 'deleted') set = { state: 'deleted', nextDueAt: null };
    else if (change.to === 'paused') set = { state: 'paused', pausedReason: change.actor };
    else {
      const next = change.nextDue?.(task);
      if (!next) return { ok: false as const, message: 'Its time has passed while it was paused; schedule it again for a new time.', task };
      set = { state: 'active', pausedReason: null, consecutiveFailures: 0, nextDueAt: next };
    }
    const [updated] = await tx
      .update(scheduledTasks)
      .set({ ...set, changedBy: change.actor, updatedAt: change.now })
      .where(eq(scheduledTasks.id, task.id))
      .returning();
    await raiseTasksVersion(tx as unknown as Database);
    return { ok: true as const, task: updated!, changed: true };
  });
}

export async function getTask(db: Database, taskId: number): Promise<TaskRow | undefined> {
  const [row] = await db.select().from(scheduledTasks).where(eq(scheduledTasks.id, taskId));
  return row;
}

/** The announcement message in the thread, so that deleting the task can update it. */
export async function recordTaskAnnouncement(db: Database, taskId: number, messageTs: string): Promise<void> {
  await db.update(scheduledTasks).set({ announcementTs: messageTs }).where(eq(scheduledTasks.id, taskId));
}

export interface TaskListQuery {
  /** Only this person's tasks; undefined: everyone's (admins, the console). */
  ownerId?: string;
  teamId?: string;
  states?: TaskState[];
  limit?: number;
}

/** Tasks for `/ask tasks`, App Home and the console: soonest due first, then paused and finished ones. */
export async function listTasks(db: Database, query: TaskListQuery = {}): Promise<TaskRow[]> {
  const conditions = [inArray(scheduledTasks.state, query.states ?? OPEN_STATES)];
  if (query.ownerId !== undefined) conditions.push(eq(scheduledTasks.ownerId, query.ownerId));
  if (query.teamId !== undefined) conditions.push(eq(scheduledTasks.teamId, query.teamId));
  return db
    .select()
    .from(scheduledTasks)
    .where(and(...conditions))
    .orderBy(sql`${scheduledTasks.nextDueAt} asc nulls last`, asc(scheduledTasks.id))
    .limit(query.limit ?? 100);
}

export type OccurrenceWithRun = OccurrenceRow & { runStatus: string | null };

/** A task's occurrences, newest first, with the status of the run that answered each (the console's task page). */
export async function listTaskOccurrences(db: Database, taskId: number, limit = 50): Promise<OccurrenceWithRun[]> {
  const rows = await db
    .select({ occurrence: taskOccurrences, runStatus: runs.status })
    .from(taskOccurrences)
    .leftJoin(runs, eq(runs.id, taskOccurrences.runId))
    .where(eq(taskOccurrences.taskId, taskId))
    .orderBy(desc(taskOccurrences.dueAt))
    .limit(limit);
  return rows.map((row) => ({ ...row.occurrence, runStatus: row.runStatus }));
}

/**
 * A person stopped a scheduled occurrence's run before it began (it was waiting): no attempt of it will say how the
 * occurrence ended, so this does, as skipped. Nothing for a run that answers no occurrence, or one recorded already.
 */
export async function recordOccurrenceStopped(db: Database, runId: number, now: Date): Promise<void> {
  const found = await occurrenceOfRun(db, runId);
  if (!found) return;
  await recordOccurrenceResult(db, { taskId: found.task.id, runId, outcome: 'skipped', error: 'cancelled by a user', now });
}

/** The occurrence a run answers, with its task: how the run machinery knows a run is a scheduled one. */
export async function occurrenceOfRun(db: Database, runId: number): Promise<{ occurrence: OccurrenceRow; task: TaskRow } | undefined> {
  const [row] = await db
    .select({ occurrence: taskOccurrences, task: scheduledTasks })
    .from(taskOccurrences)
    .innerJoin(scheduledTasks, eq(scheduledTasks.id, taskOccurrences.taskId))
    .where(eq(taskOccurrences.runId, runId))
    .limit(1);
  return row;
}
