/**
 * Scheduled tasks as stored (the schedule's logic is src/tasks/'s; it hands in what it computes). Time is always a
 * parameter (the caller's Clock), never the database's now(), so tests move it by hand.
 *
 * Exactly once: an occurrence is claimed by inserting its (task, due time) row — ON CONFLICT DO NOTHING — in the
 * transaction that advances the task's next_due_at and (through `enqueue`) writes the run that answers it. Two
 * replicas, or a restart, can therefore never make two runs of one due time: the second finds the task advanced
 * (or locked: SKIP LOCKED) or the key taken.
 */
import { and, asc, desc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
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

/** Active tasks due at `now`, earliest first. Only ids: each is claimed (and locked) in its own transaction. */
export async function dueTaskIds(db: Database, now: Date, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: scheduledTasks.id })
    .from(scheduledTasks)
    .where(and(eq(scheduledTasks.state, 'active'), lte(scheduledTasks.nextDueAt, now)))
    .orderBy(asc(scheduledTasks.nextDueAt), asc(scheduledTasks.id))
    .limit(limit);
  return rows.map((row) => row.id);
}

export interface ClaimOptions {
  taskId: number;
  now: Date;
  /** This process (the occurrence's claimed_by). */
  owner: string;
  /** The task's next due time after this one (computed from `now`, so missed ones are skipped); undefined: none left. */
  nextDue(task: TaskRow): Date | undefined;
  /**
   * Writes what answers the occurrence, inside the claim's transaction (`tx`): the run row. Returns its id, recorded
   * on the occurrence. Throwing rolls the claim back: the occurrence stays due and is tried again.
   */
  enqueue?(occurrence: OccurrenceRow, task: TaskRow, tx: Database): Promise<number | undefined>;
}

export type ClaimResult =
  | { kind: 'claimed'; occurrence: OccurrenceRow; task: TaskRow }
  /** Not due any more, or another replica holds it right now. */
  | { kind: 'skipped' }
  /** The (task, due time) key was taken already: the task was only advanced. */
  | { kind: 'duplicate'; task: TaskRow };

/** Claims the task's due occurrence and advances it, in one transaction (see the file's comment). */
export async function claimOccurrence(db: Database, options: ClaimOptions): Promise<ClaimResult> {
  return db.transaction(async (tx) => {
    const txDb = tx as unknown as Database;
    const [task] = await tx
      .select()
      .from(scheduledTasks)
      .where(and(eq(scheduledTasks.id, options.taskId), eq(scheduledTasks.state, 'active'), lte(scheduledTasks.nextDueAt, options.now)))
      .for('update', { skipLocked: true });
    if (!task || !task.nextDueAt) return { kind: 'skipped' as const };
    const dueAt = task.nextDueAt;
    const next = options.nextDue(task);
    const [advanced] = await tx
      .update(scheduledTasks)
      .set({ nextDueAt: next ?? null, state: next ? task.state : 'done', updatedAt: options.now })
      .where(eq(scheduledTasks.id, task.id))
      .returning();
    const [occurrence] = await tx
      .insert(taskOccurrences)
      .values({
        taskId: task.id,
        dueAt,
        claimedAt: options.now,
        claimedBy: options.owner,
        lateMs: Math.max(0, options.now.getTime() - dueAt.getTime()),
      })
      .onConflictDoNothing()
      .returning();
    if (!occurrence) return { kind: 'duplicate' as const, task: advanced! };
    const runId = options.enqueue ? await options.enqueue(occurrence, task, txDb) : undefined;
    if (runId === undefined) return { kind: 'claimed' as const, occurrence, task: advanced! };
    const [withRun] = await tx.update(taskOccurrences).set({ runId }).where(eq(taskOccurrences.id, occurrence.id)).returning();
    return { kind: 'claimed' as const, occurrence: withRun!, task: advanced! };
  });
}

export interface OccurrenceResult {
  taskId: number;
  /** The run that answered it: picks the occurrence exactly; without it, the task's latest unfinished one. */
  runId?: number;
  ok: boolean;
  error?: string;
  now: Date;
  /** Consecutive failures after which the task pauses itself. */
  pauseAfterFailures: number;
}

/**
 * Records how an occurrence's run ended (once per occurrence: a second report of the same one counts nothing).
 * A failure raises the task's consecutive failures, a success resets them; the Nth failure in a row pauses the task.
 */
export async function recordOccurrenceResult(
  db: Database,
  result: OccurrenceResult,
): Promise<{ counted: boolean; paused: boolean; task: TaskRow | undefined }> {
  return db.transaction(async (tx) => {
    const [occurrence] = await tx
      .select()
      .from(taskOccurrences)
      .where(
        result.runId !== undefined
          ? and(eq(taskOccurrences.taskId, result.taskId), eq(taskOccurrences.runId, result.runId))
          : and(eq(taskOccurrences.taskId, result.taskId), isNull(taskOccurrences.result)),
      )
      .orderBy(desc(taskOccurrences.dueAt))
      .limit(1)
      .for('update');
    // Nothing unfinished to report on, or this occurrence was reported already: count nothing twice.
    if (!occurrence || occurrence.result) return { counted: false, paused: false, task: await getTask(tx as unknown as Database, result.taskId) };
    const outcome = result.ok ? ('ok' as const) : ('failed' as const);
    const error = result.ok ? null : (result.error ?? 'failed').slice(0, 500);
    await tx.update(taskOccurrences).set({ result: outcome, error, finishedAt: result.now }).where(eq(taskOccurrences.id, occurrence.id));
    const [task] = await tx
      .update(scheduledTasks)
      .set({
        consecutiveFailures: result.ok ? 0 : sql`${scheduledTasks.consecutiveFailures} + 1`,
        lastResult: outcome,
        lastError: error,
        lastRunAt: result.now,
        updatedAt: result.now,
      })
      .where(eq(scheduledTasks.id, result.taskId))
      .returning();
    if (!task) return { counted: false, paused: false, task: undefined };
    if (result.ok || task.state !== 'active' || task.consecutiveFailures < result.pauseAfterFailures) {
      return { counted: true, paused: false, task };
    }
    const [paused] = await tx
      .update(scheduledTasks)
      .set({ state: 'paused', pausedReason: 'failures', updatedAt: result.now })
      .where(eq(scheduledTasks.id, task.id))
      .returning();
    await raiseTasksVersion(tx as unknown as Database);
    return { counted: true, paused: true, task: paused };
  });
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
