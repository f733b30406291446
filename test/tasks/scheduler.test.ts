/**
 * The scheduler on PGlite and (with TEST_DATABASE_URL) PostgreSQL, with a clock moved by hand: each due time of a
 * repeating task runs once across a restart and across two replicas at once; a missed occurrence runs once,
 * marked late; DST keeps local times; a failing task pauses itself; a deleted one stops; and an idle replica with
 * 10,000 tasks none of which is due asks the database at most twice a minute.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { and, eq, inArray, like } from 'drizzle-orm';
import { openDatabase } from '../../src/app/database/open-database';
import { silentLogger } from '../../src/logging/logger';
import type { Database, DatabaseHandle } from '../../src/store/database';
import { runs, scheduledTasks, taskOccurrences } from '../../src/store/schema';
import { insertWaitingRuns } from '../../src/store/run-store';
import { upsertThreads } from '../../src/store/thread-store';
import { getTask, listTaskOccurrences, occurrenceOfRun, type TaskRow } from '../../src/store/task-store';
import { localIso } from '../../src/tasks/local-time';
import { changeTask, scheduleTask, type TaskContext } from '../../src/tasks/manage-tasks';
import { occurrencePrompt } from '../../src/tasks/occurrence-prompt';
import { insertOccurrenceRuns } from '../../src/tasks/occurrence-run';
import { createTaskScheduler, type ScheduledOccurrence, type TaskSchedulerOptions } from '../../src/tasks/scheduler';
import { createScratchPostgres, testDatabases, type TestDatabase } from '../support/databases';
import { countingDatabase } from './counting-database';
import { createFakeClock, type FakeClock } from '../support/test-clock';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Thu 26 Nov 2026, 10:00 UTC (11:00 in Paris). */
const START = Date.parse('2026-11-26T10:00:00Z');
const limits = { minIntervalMinutes: 60, maxPerPerson: 1000 };
const context = (thread: string, userId = 'U0OWNER'): TaskContext => ({ teamId: 'T1', channelId: 'CTASKS', threadTs: thread, userId, timeZone: 'Europe/Paris' });

/** A run worker that answers at once: the run rows are written (by the real enqueue) and marked done. */
async function enqueueAndAnswer(occurrences: readonly ScheduledOccurrence[], tx: Database): Promise<Array<number | undefined>> {
  const runIds = await insertOccurrenceRuns(occurrences, tx);
  const written = runIds.filter((id) => id !== undefined);
  if (written.length > 0) await tx.update(runs).set({ status: 'done' }).where(inArray(runs.id, written));
  return runIds;
}

function startScheduler(db: Database, clock: FakeClock, owner: string, options: Partial<TaskSchedulerOptions> = {}) {
  const claimed: ScheduledOccurrence[] = [];
  const scheduler = createTaskScheduler({
    db,
    clock,
    owner,
    logger: silentLogger,
    checkEveryMs: HOUR,
    enqueueOccurrences: enqueueAndAnswer,
    onClaimed: (occurrence) => claimed.push(occurrence),
    ...options,
  });
  scheduler.start();
  return { scheduler, claimed };
}

async function schedule(db: Database, clock: FakeClock, thread: string, when: string, userId?: string) {
  const outcome = await scheduleTask({ db, clock, limits }, context(thread, userId), { prompt: `Summarise #incidents (${thread})`, when });
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.task;
}

async function occurrencesOf(db: Database, taskId: number) {
  return db.select().from(taskOccurrences).where(eq(taskOccurrences.taskId, taskId)).orderBy(taskOccurrences.dueAt);
}

/** Two handles on one database: two replicas. PGlite in memory cannot be shared between handles: the same one twice. */
async function openReplicas(database: TestDatabase, handle: DatabaseHandle): Promise<{ a: Database; b: Database; close(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (database.label !== 'postgres' || !adminUrl) return { a: handle.db, b: handle.db, close: async () => {} };
  const scratch = await createScratchPostgres(adminUrl);
  const first = await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 4 });
  const second = await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 4 });
  return {
    a: first.db,
    b: second.db,
    close: async () => {
      await first.close();
      await second.close();
      await scratch.drop();
    },
  };
}

describe.each(testDatabases())('task scheduler on $label', (database) => {
  let handle: DatabaseHandle;
  let db: Database;
  beforeAll(async () => {
    handle = await database.open();
    db = handle.db;
  }, 60_000);
  afterAll(async () => {
    await handle?.close();
  });
  beforeEach(async () => {
    await db.delete(scheduledTasks);
  });

  it('fires a repeating task once per due time, across a restart', async () => {
    const clock = createFakeClock(START);
    const task = await schedule(db, clock, '1700000000.000100', '0 9 * * *');
    const first = startScheduler(db, clock, 'replica-a');
    await clock.runUntil(START + 2.5 * DAY, () => first.scheduler.idle());
    expect(first.claimed.map((o) => o.dueAt.toISOString())).toEqual(['2026-11-27T08:00:00.000Z', '2026-11-28T08:00:00.000Z']);
    await first.scheduler.stop();

    // A restart: a new scheduler (a new process) on the same database carries on without repeating anything.
    const second = startScheduler(db, clock, 'replica-b');
    await clock.runUntil(START + 5.5 * DAY, () => second.scheduler.idle());
    await second.scheduler.stop();
    expect(second.claimed.map((o) => o.dueAt.toISOString())).toEqual(['2026-11-29T08:00:00.000Z', '2026-11-30T08:00:00.000Z', '2026-12-01T08:00:00.000Z']);

    const occurrences = await occurrencesOf(db, task.id);
    expect(occurrences).toHaveLength(5);
    expect(new Set(occurrences.map((o) => o.runId)).size).toBe(5);
    expect(occurrences.every((o) => o.lateMs === 0)).toBe(true);
    const taskRuns = await db.select().from(runs).where(like(runs.triggerTs, `task:${task.id}:%`));
    expect(taskRuns).toHaveLength(5);
    expect(taskRuns.every((run) => run.triggerUserId === 'U0OWNER' && run.channelId === 'CTASKS')).toBe(true);
    // The run machinery finds the occurrence (and its task) from the run.
    const found = await occurrenceOfRun(db, taskRuns[0]!.id);
    expect(found?.task.id).toBe(task.id);
    expect((await getTask(db, task.id))?.nextDueAt?.toISOString()).toBe('2026-12-02T08:00:00.000Z');
    const listed = await listTaskOccurrences(db, task.id);
    expect(listed.map((o) => o.runStatus)).toEqual(['done', 'done', 'done', 'done', 'done']);
  });

  it('two replicas at once claim each occurrence exactly once', async () => {
    const replicas = await openReplicas(database, handle);
    try {
      const clock = createFakeClock(START);
      const tasks: TaskRow[] = [];
      for (let i = 0; i < 30; i++) tasks.push(await schedule(replicas.a, clock, `1700000000.${String(i).padStart(6, '0')}`, `${i % 3} 9 * * *`));
      const a = startScheduler(replicas.a, clock, 'replica-a', { retryMs: 1000 });
      const b = startScheduler(replicas.b, clock, 'replica-b', { retryMs: 1000 });
      await clock.runUntil(START + 3.5 * DAY, () => Promise.all([a.scheduler.idle(), b.scheduler.idle()]).then(() => undefined));
      await Promise.all([a.scheduler.stop(), b.scheduler.stop()]);

      const claimed = [...a.claimed, ...b.claimed];
      expect(claimed).toHaveLength(90); // 30 tasks × 3 mornings
      const keys = claimed.map((o) => `${o.task.id}@${o.dueAt.toISOString()}`);
      expect(new Set(keys).size).toBe(90);
      for (const task of tasks) expect(await occurrencesOf(replicas.a, task.id)).toHaveLength(3);
      const taskRuns = await replicas.a.select().from(runs).where(and(like(runs.triggerTs, 'task:%'), eq(runs.channelId, 'CTASKS')));
      expect(taskRuns.filter((run) => tasks.some((task) => run.triggerTs.startsWith(`task:${task.id}:`)))).toHaveLength(90);
    } finally {
      await replicas.close();
    }
  }, 60_000);

  it('runs a missed occurrence once, marked late, and moves on to the next due time after now', async () => {
    const clock = createFakeClock(START);
    const task = await schedule(db, clock, '1700000001.000100', '0 9 * * *');
    // Down for three mornings: nothing runs meanwhile.
    await clock.runUntil(START + 3 * DAY + 2 * HOUR, async () => {});
    const { scheduler, claimed } = startScheduler(db, clock, 'replica-a');
    await scheduler.idle();
    await scheduler.stop();

    expect(claimed).toHaveLength(1);
    expect(claimed[0]!.dueAt.toISOString()).toBe('2026-11-27T08:00:00.000Z');
    expect(claimed[0]!.late).toBe(true);
    expect(claimed[0]!.lateByMs).toBe(START + 3 * DAY + 2 * HOUR - Date.parse('2026-11-27T08:00:00Z'));
    expect((await getTask(db, task.id))?.nextDueAt?.toISOString()).toBe('2026-11-30T08:00:00.000Z');
    expect(await occurrencesOf(db, task.id)).toHaveLength(1);

    const prompt = occurrencePrompt({ ownerId: task.ownerId, prompt: task.prompt, schedule: claimed[0]!.schedule, dueAt: claimed[0]!.dueAt, startedAt: clock.now() });
    expect(prompt).toContain('due Fri 27 Nov, 09:00 (Europe/Paris). It starts 2 days 4 h late');
    expect(prompt).toContain('Nobody is waiting for a reply in real time');
  });

  it('a crash before the claim commits leaves the occurrence due, and it runs once after the restart', async () => {
    const clock = createFakeClock(START);
    const task = await schedule(db, clock, '1700000002.000100', '2026-11-27T09:00');
    const crashing = startScheduler(db, clock, 'replica-a', {
      enqueueOccurrences: async () => {
        throw new Error('killed before the run row was written');
      },
    });
    await clock.runUntil(Date.parse('2026-11-27T08:00:30Z'), () => crashing.scheduler.idle());
    await crashing.scheduler.stop();
    expect(await occurrencesOf(db, task.id)).toHaveLength(0);
    expect((await getTask(db, task.id))?.nextDueAt?.toISOString()).toBe('2026-11-27T08:00:00.000Z');

    const restarted = startScheduler(db, clock, 'replica-b');
    await clock.runUntil(Date.parse('2026-11-28T08:00:00Z'), () => restarted.scheduler.idle());
    await restarted.scheduler.stop();
    expect(restarted.claimed).toHaveLength(1);
    expect(restarted.claimed[0]!.late).toBe(false);
    const after = await getTask(db, task.id);
    expect(after?.state).toBe('done');
    expect(after?.nextDueAt).toBeNull();
  });

  it('keeps local times across DST in Europe/Paris and America/New_York', async () => {
    const clock = createFakeClock(Date.parse('2026-03-27T12:00:00Z'));
    const paris = await schedule(db, clock, '1700000003.000100', '0 9 * * *');
    const outcome = await scheduleTask({ db, clock, limits }, { ...context('1700000003.000200'), timeZone: 'Europe/Paris' }, { prompt: 'NY digest', when: '0 9 * * *', timeZone: 'America/New_York' });
    if (!outcome.ok) throw new Error(outcome.message);
    const { scheduler, claimed } = startScheduler(db, clock, 'replica-a');
    await clock.runUntil(Date.parse('2026-03-31T18:00:00Z'), () => scheduler.idle());
    await scheduler.stop();
    const at = (taskId: number, zone: string) => claimed.filter((o) => o.task.id === taskId).map((o) => `${o.dueAt.toISOString().slice(11, 16)}Z=${localIso(o.dueAt, zone).slice(5, 16)}`);
    expect(at(paris.id, 'Europe/Paris')).toEqual(['08:00Z=03-28T09:00', '07:00Z=03-29T09:00', '07:00Z=03-30T09:00', '07:00Z=03-31T09:00']);
    expect(at(outcome.task.id, 'America/New_York')).toEqual(['13:00Z=03-27T09:00', '13:00Z=03-28T09:00', '13:00Z=03-29T09:00', '13:00Z=03-30T09:00', '13:00Z=03-31T09:00']);
  });

  it('a failing task pauses itself after N failures in a row and says so; a success in between resets the count', async () => {
    const clock = createFakeClock(START);
    const task = await schedule(db, clock, '1700000004.000100', '0 9 * * *');
    const paused: number[] = [];
    const { scheduler, claimed } = startScheduler(db, clock, 'replica-a', { pauseAfterFailures: 3, onPaused: (t) => void paused.push(t.id) });
    const results = [false, false, true, false, false, false];
    for (const [day, ok] of results.entries()) {
      await clock.runUntil(Date.parse('2026-11-27T08:00:00Z') + day * DAY + HOUR, () => scheduler.idle());
      const occurrence = claimed.at(-1)!;
      const runId = (await occurrencesOf(db, task.id)).at(-1)!.runId!;
      expect(occurrence.dueAt.getTime()).toBe(Date.parse('2026-11-27T08:00:00Z') + day * DAY);
      const outcome = await scheduler.recordOccurrenceResult(task.id, ok ? 'ok' : 'failed', { runId, error: ok ? undefined : 'the model timed out' });
      expect(outcome.paused).toBe(day === 5);
      // The same run reported twice counts once.
      expect((await scheduler.recordOccurrenceResult(task.id, ok ? 'ok' : 'failed', { runId })).paused).toBe(false);
    }
    expect(paused).toEqual([task.id]);
    const after = await getTask(db, task.id);
    expect(after).toMatchObject({ state: 'paused', pausedReason: 'failures', consecutiveFailures: 3, lastResult: 'failed', lastError: 'the model timed out' });
    await clock.runUntil(START + 10 * DAY, () => scheduler.idle());
    await scheduler.stop();
    expect(claimed).toHaveLength(6);
  });

  it('delete by a non-owner is refused; by the owner it stops the task', async () => {
    const clock = createFakeClock(START);
    const task = await schedule(db, clock, '1700000005.000100', '0 9 * * *');
    const { scheduler, claimed } = startScheduler(db, clock, 'replica-a');
    await clock.runUntil(START + DAY, () => scheduler.idle());
    expect(claimed).toHaveLength(1);

    const deps = { db, clock, admins: ['U0ADMIN'] };
    const refused = await changeTask(deps, { taskId: task.id, userId: 'U0OTHER', action: 'delete' });
    expect(refused).toMatchObject({ ok: false, message: 'Only <@U0OWNER> (who scheduled it) or an admin can delete this task.' });
    expect((await getTask(db, task.id))?.state).toBe('active');

    const deleted = await changeTask(deps, { taskId: task.id, userId: 'U0OWNER', action: 'delete' });
    expect(deleted).toMatchObject({ ok: true, changed: true, message: 'Deleted the task (every day at 09:00 Europe/Paris); it will not run again.' });
    scheduler.refresh();
    await clock.runUntil(START + 5 * DAY, () => scheduler.idle());
    await scheduler.stop();
    expect(claimed).toHaveLength(1);
    expect(await changeTask(deps, { taskId: task.id, userId: 'U0OWNER', action: 'resume' })).toMatchObject({ ok: false, message: 'That task no longer exists: it was deleted.' });
  });

  it('an admin may pause and resume anyone’s task; resuming starts from the next due time after now', async () => {
    const clock = createFakeClock(START);
    const task = await schedule(db, clock, '1700000006.000100', '0 9 * * 1');
    const deps = { db, clock, admins: ['U0ADMIN'] };
    expect(await changeTask(deps, { taskId: task.id, userId: 'U0ADMIN', action: 'pause' })).toMatchObject({ ok: true, changed: true });
    const { scheduler, claimed } = startScheduler(db, clock, 'replica-a');
    await clock.runUntil(START + 8 * DAY, () => scheduler.idle());
    expect(claimed).toHaveLength(0);
    const resumed = await changeTask(deps, { taskId: task.id, userId: 'U0ADMIN', action: 'resume' });
    expect(resumed).toMatchObject({ ok: true, message: 'Resumed the task: every Monday at 09:00 Europe/Paris — next: Mon 7 Dec, 09:00.' });
    scheduler.refresh();
    await clock.runUntil(START + 12 * DAY, () => scheduler.idle());
    await scheduler.stop();
    expect(claimed.map((o) => o.dueAt.toISOString())).toEqual(['2026-12-07T08:00:00.000Z']);
  });

  it('a task written on another replica is seen within one version check, and runs at its time', async () => {
    const clock = createFakeClock(START);
    const { scheduler, claimed } = startScheduler(db, clock, 'replica-a', { checkEveryMs: 30_000 });
    await scheduler.idle();
    // Written through the store directly, not through this scheduler (no refresh): only the version tells.
    await schedule(db, clock, '1700000007.000100', '2026-11-26T11:05');
    await clock.runUntil(START + 5 * 60_000 + 1, () => scheduler.idle());
    await scheduler.stop();
    expect(claimed.map((o) => [o.dueAt.toISOString(), o.late])).toEqual([['2026-11-26T10:05:00.000Z', false]]);
  });

  it('waits while a person\'s question is waiting in the thread, then runs the occurrence once', async () => {
    const clock = createFakeClock(START);
    const threadTs = '1700000008.000100';
    const [thread] = await upsertThreads(db, [{ teamId: 'T1', channelId: 'CTASKS', threadTs, engaged: true }]);
    const [waiting] = await insertWaitingRuns(db, [{ threadId: thread!.id, triggerTs: '1700000008.000200', triggerUserId: 'U0HUMAN', channelId: 'CTASKS' }]);
    await schedule(db, clock, threadTs, '2026-11-26T11:05');
    const { scheduler, claimed } = startScheduler(db, clock, 'replica-a', { retryMs: 1000 });
    await clock.runUntil(START + 5 * 60_000 + 10_000, () => scheduler.idle());
    expect(claimed).toHaveLength(0);
    await db.update(runs).set({ status: 'running' }).where(eq(runs.id, waiting!.id));
    await clock.runUntil(START + 5 * 60_000 + 20_000, () => scheduler.idle());
    await scheduler.stop();
    expect(claimed).toHaveLength(1);
    expect(claimed[0]!.late).toBe(false);
  });

  it('idle with 10,000 tasks none of which is due: one timer, at most 2 queries a minute', async () => {
    const clock = createFakeClock(START);
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      teamId: 'T1',
      channelId: 'CIDLE',
      threadTs: `1700000100.${String(i).padStart(6, '0')}`,
      ownerId: `U${i % 50}`,
      prompt: 'weekly digest',
      scheduleKind: 'cron' as const,
      schedule: '0 9 * * 1',
      timeZone: 'Europe/Paris',
      nextDueAt: new Date(START + 30 * DAY + i * 60_000),
    }));
    for (let i = 0; i < rows.length; i += 1000) await db.insert(scheduledTasks).values(rows.slice(i, i + 1000));

    const counting = countingDatabase(db);
    const { scheduler, claimed } = startScheduler(counting.db, clock, 'replica-a', { checkEveryMs: 30_000 });
    await scheduler.idle();
    const afterStart = counting.count();
    expect(afterStart).toBe(1); // the earliest due time and the version, in one statement
    await clock.runUntil(START + 10 * 60_000, () => scheduler.idle());
    const perMinute = (counting.count() - afterStart) / 10;
    expect(perMinute).toBeLessThanOrEqual(2);
    expect(clock.pending()).toBe(1);
    await scheduler.stop();
    expect(claimed).toHaveLength(0);
  }, 60_000);
});
