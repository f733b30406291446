/**
 * Scheduled tasks as stored, on PGlite and (with TEST_DATABASE_URL) PostgreSQL: the per-person cap, an occurrence
 * claimed once per (task, due time), in batches whose occurrences can each be taken back, a claim that fails leaving
 * nothing behind, failures counted once per run,
 * state changes only for those allowed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../../src/store/database';
import { scheduledTasks, taskOccurrences } from '../../src/store/schema';
import {
  changeTaskState,
  claimDueOccurrences,
  countOpenTasks,
  getTask,
  insertTask,
  listTasks,
  readTaskWakeUp,
  recordOccurrenceResult,
  recordTaskAnnouncement,
  tasksVersionOf,
  type ClaimedOccurrence,
  type NewTask,
} from '../../src/store/task-store';
import { insertWaitingRuns } from '../../src/store/run-store';
import { upsertThreads } from '../../src/store/thread-store';
import { testDatabases } from '../support/databases';

const NOW = new Date('2026-11-26T10:00:00Z');
const task = (ownerId: string, nextDueAt: Date, extra: Partial<NewTask> = {}): NewTask => ({
  teamId: 'T1',
  channelId: 'CSTORE',
  threadTs: '1700000000.000100',
  ownerId,
  prompt: 'digest',
  scheduleKind: 'cron',
  schedule: '0 9 * * *',
  timeZone: 'Europe/Paris',
  nextDueAt,
  ...extra,
});
const allow = () => ({ allowed: true as const });

describe.each(testDatabases())('task store on $label', (database) => {
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

  async function insert(ownerId: string, nextDueAt: Date, extra?: Partial<NewTask>) {
    const inserted = await insertTask(db, task(ownerId, nextDueAt, extra), { maxPerPerson: 100, now: NOW });
    if (!inserted.ok) throw new Error('over cap');
    return inserted.task;
  }

  it('refuses a task over the per-person cap; paused tasks count, deleted ones do not; the version rises', async () => {
    const before = await tasksVersionOf(db);
    const first = await insertTask(db, task('U1', NOW), { maxPerPerson: 2, now: NOW });
    const second = await insertTask(db, task('U1', NOW), { maxPerPerson: 2, now: NOW });
    expect(first.ok && second.ok).toBe(true);
    expect(await insertTask(db, task('U1', NOW), { maxPerPerson: 2, now: NOW })).toEqual({ ok: false, open: 2 });
    expect((await insertTask(db, task('U2', NOW), { maxPerPerson: 2, now: NOW })).ok).toBe(true);
    if (!first.ok) return;
    await changeTaskState(db, { taskId: first.task.id, actor: 'U1', to: 'paused', now: NOW, authorize: allow });
    expect(await countOpenTasks(db, 'U1')).toBe(2);
    await changeTaskState(db, { taskId: first.task.id, actor: 'U1', to: 'deleted', now: NOW, authorize: allow });
    expect(await countOpenTasks(db, 'U1')).toBe(1);
    expect((await insertTask(db, task('U1', NOW), { maxPerPerson: 2, now: NOW })).ok).toBe(true);
    expect(await tasksVersionOf(db)).toBe(before + 6);
  });

  it('two requests at once cannot both squeeze under the cap', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => insertTask(db, task('U3', NOW), { maxPerPerson: 3, now: NOW })));
    expect(results.filter((result) => result.ok)).toHaveLength(3);
    expect(await countOpenTasks(db, 'U3')).toBe(3);
  });

  it('claims an occurrence once per (task, due time), advancing the task in the same transaction', async () => {
    const due = new Date('2026-11-26T08:00:00Z');
    const next = new Date('2026-11-27T08:00:00Z');
    const row = await insert('U1', due);
    expect((await readTaskWakeUp(db)).nextDueAt?.toISOString()).toBe(due.toISOString());
    const options = { now: NOW, owner: 'r1', limit: 10, nextDue: () => next };
    const claimed = await claimDueOccurrences(db, options);
    expect(claimed.claimed).toMatchObject([{ occurrence: { taskId: row.id, dueAt: due, claimedBy: 'r1', lateMs: 2 * 3_600_000 }, task: { nextDueAt: next } }]);
    // Claimed again (a second replica, a restart): not due any more.
    expect(await claimDueOccurrences(db, options)).toEqual({ claimed: [], duplicates: [], deferred: [] });
    // Even a task put back to a due time already claimed only advances: the key is taken.
    await db.update(scheduledTasks).set({ nextDueAt: due }).where(eq(scheduledTasks.id, row.id));
    expect(await claimDueOccurrences(db, options)).toMatchObject({ claimed: [], duplicates: [{ id: row.id, nextDueAt: next }], deferred: [] });
    expect(await db.select().from(taskOccurrences).where(eq(taskOccurrences.taskId, row.id))).toHaveLength(1);
  });

  it('claims due tasks in batches, earliest first; an occurrence its enqueue takes back leaves its task due', async () => {
    const rows = [];
    for (let i = 0; i < 5; i++) rows.push(await insert('U1', new Date(Date.parse('2026-11-26T08:00:00Z') + i * 60_000)));
    await insert('U1', new Date('2026-11-26T11:00:00Z')); // not due yet
    const next = new Date('2026-11-27T08:00:00Z');
    const enqueued: number[][] = [];
    // A run for each occurrence but the second of the batch: its thread is busy, so it is taken back.
    const enqueue = async (claimed: readonly ClaimedOccurrence[], tx: Database) => {
      enqueued.push(claimed.map(({ task }) => task.id));
      const threads = await upsertThreads(tx, claimed.map(({ task }) => ({ channelId: 'CSTORE', threadTs: `1700000000.${task.id}` })));
      const written = await insertWaitingRuns(tx, claimed.map(({ occurrence }, i) => ({ threadId: threads[i]!.id, triggerTs: `task:${occurrence.taskId}` })));
      return claimed.map((_, i) => (i === 1 ? undefined : written[i]!.id));
    };
    const first = await claimDueOccurrences(db, { now: NOW, owner: 'r1', limit: 3, nextDue: () => next, enqueue });
    expect(enqueued).toEqual([rows.slice(0, 3).map((r) => r.id)]);
    expect(first.claimed.map(({ task }) => task.id)).toEqual([rows[0]!.id, rows[2]!.id]);
    expect(first.deferred).toEqual([rows[1]!.id]);
    expect((await getTask(db, rows[1]!.id))?.nextDueAt?.toISOString()).toBe('2026-11-26T08:01:00.000Z');
    expect((await getTask(db, rows[2]!.id))?.nextDueAt?.toISOString()).toBe(next.toISOString());
    // Each claimed occurrence records its run; the one taken back left no occurrence row.
    const stored = await db.select().from(taskOccurrences).where(inArray(taskOccurrences.taskId, rows.map((r) => r.id)));
    expect(stored.map((o) => [o.taskId, o.runId]).sort()).toEqual(first.claimed.map(({ occurrence }) => [occurrence.taskId, occurrence.runId]).sort());
    expect(first.claimed.every(({ occurrence }) => occurrence.runId !== null)).toBe(true);

    // The next batch starts with the task still due.
    const second = await claimDueOccurrences(db, { now: NOW, owner: 'r1', limit: 10, nextDue: () => next });
    expect(second.claimed.map(({ task }) => task.id)).toEqual([rows[1]!.id, rows[3]!.id, rows[4]!.id]);
  });

  it('a claim whose enqueue fails leaves nothing: the whole batch is still due', async () => {
    const due = new Date('2026-11-26T08:00:00Z');
    const row = await insert('U1', due);
    const other = await insert('U1', due);
    await expect(
      claimDueOccurrences(db, {
        now: NOW,
        owner: 'r1',
        limit: 10,
        nextDue: () => new Date('2026-11-27T08:00:00Z'),
        enqueue: async () => {
          throw new Error('killed before the run rows');
        },
      }),
    ).rejects.toThrow('killed before the run rows');
    for (const id of [row.id, other.id]) {
      expect((await getTask(db, id))?.nextDueAt?.toISOString()).toBe(due.toISOString());
      expect(await db.select().from(taskOccurrences).where(eq(taskOccurrences.taskId, id))).toHaveLength(0);
    }
  });

  it('a one-off is done once claimed', async () => {
    const row = await insert('U1', new Date('2026-11-26T09:00:00Z'), { scheduleKind: 'once', schedule: '2026-11-26T10:00:00' });
    await claimDueOccurrences(db, { now: NOW, owner: 'r1', limit: 10, nextDue: () => undefined });
    expect(await getTask(db, row.id)).toMatchObject({ state: 'done', nextDueAt: null });
    expect(await listTasks(db, { ownerId: 'U1' })).toEqual([]);
    expect((await listTasks(db, { ownerId: 'U1', states: ['done'] })).map((t) => t.id)).toEqual([row.id]);
  });

  it('pauses a task after N failures in a row, counting each occurrence once', async () => {
    const row = await insert('U1', new Date('2026-11-20T08:00:00Z'));
    let pausedAt = -1;
    for (let day = 0; day < 4; day++) {
      const now = new Date(Date.parse('2026-11-20T08:00:00Z') + day * 86_400_000);
      await db.update(scheduledTasks).set({ nextDueAt: now }).where(eq(scheduledTasks.id, row.id));
      const claim = await claimDueOccurrences(db, { now, owner: 'r1', limit: 10, nextDue: () => new Date(now.getTime() + 86_400_000) });
      if (claim.claimed.length !== 1) break;
      const result = await recordOccurrenceResult(db, { taskId: row.id, outcome: 'failed', error: 'boom', now, pauseAfterFailures: 3 });
      expect(result.counted).toBe(true);
      if (result.paused) pausedAt = day;
      expect((await recordOccurrenceResult(db, { taskId: row.id, outcome: 'failed', now, pauseAfterFailures: 3 })).counted).toBe(false);
    }
    expect(pausedAt).toBe(2);
    expect(await getTask(db, row.id)).toMatchObject({ state: 'paused', pausedReason: 'failures', consecutiveFailures: 3, lastResult: 'failed', lastError: 'boom' });
  });

  it('changes state only when authorised, with the refusal sentence; resuming needs a next due time', async () => {
    const row = await insert('U1', NOW, { scheduleKind: 'once', schedule: '2026-11-26T11:00:00' });
    await recordTaskAnnouncement(db, row.id, '1700000000.000200');
    const refused = await changeTaskState(db, {
      taskId: row.id,
      actor: 'U9',
      to: 'deleted',
      now: NOW,
      authorize: () => ({ allowed: false, message: 'Only <@U1> (who scheduled it) or an admin can delete this task.' }),
    });
    expect(refused).toMatchObject({ ok: false, message: 'Only <@U1> (who scheduled it) or an admin can delete this task.' });
    expect(await changeTaskState(db, { taskId: row.id, actor: 'U1', to: 'paused', now: NOW, authorize: allow })).toMatchObject({ ok: true, changed: true, task: { state: 'paused', pausedReason: 'U1' } });
    expect(await changeTaskState(db, { taskId: row.id, actor: 'U1', to: 'active', now: NOW, authorize: allow, nextDue: () => undefined })).toMatchObject({
      ok: false,
      message: 'Its time has passed while it was paused; schedule it again for a new time.',
    });
    const deleted = await changeTaskState(db, { taskId: row.id, actor: 'U1', to: 'deleted', now: NOW, authorize: allow });
    expect(deleted).toMatchObject({ ok: true, task: { state: 'deleted', nextDueAt: null, announcementTs: '1700000000.000200', changedBy: 'U1' } });
    expect((await readTaskWakeUp(db)).nextDueAt).toBeUndefined();
  });
});
