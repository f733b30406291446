/**
 * Scheduled tasks as stored, on PGlite and (with TEST_DATABASE_URL) PostgreSQL: the per-person cap, an occurrence
 * claimed once per (task, due time), a claim that fails leaving nothing behind, failures counted once per run,
 * state changes only for those allowed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../../src/store/database';
import { scheduledTasks, taskOccurrences } from '../../src/store/schema';
import {
  changeTaskState,
  claimOccurrence,
  countOpenTasks,
  getTask,
  insertTask,
  listTasks,
  readTaskWakeUp,
  recordOccurrenceResult,
  recordTaskAnnouncement,
  tasksVersionOf,
  type NewTask,
} from '../../src/store/task-store';
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
    const options = { taskId: row.id, now: NOW, owner: 'r1', nextDue: () => next };
    const claimed = await claimOccurrence(db, options);
    expect(claimed).toMatchObject({ kind: 'claimed', occurrence: { taskId: row.id, dueAt: due, claimedBy: 'r1', lateMs: 2 * 3_600_000 }, task: { nextDueAt: next } });
    // Claimed again (a second replica, a restart): not due any more.
    expect(await claimOccurrence(db, options)).toEqual({ kind: 'skipped' });
    // Even a task put back to a due time already claimed only advances: the key is taken.
    await db.update(scheduledTasks).set({ nextDueAt: due }).where(eq(scheduledTasks.id, row.id));
    expect(await claimOccurrence(db, options)).toMatchObject({ kind: 'duplicate', task: { nextDueAt: next } });
    expect(await db.select().from(taskOccurrences).where(eq(taskOccurrences.taskId, row.id))).toHaveLength(1);
  });

  it('a claim whose enqueue fails leaves nothing: the occurrence is still due', async () => {
    const due = new Date('2026-11-26T08:00:00Z');
    const row = await insert('U1', due);
    await expect(
      claimOccurrence(db, {
        taskId: row.id,
        now: NOW,
        owner: 'r1',
        nextDue: () => new Date('2026-11-27T08:00:00Z'),
        enqueue: async () => {
          throw new Error('thread busy');
        },
      }),
    ).rejects.toThrow('thread busy');
    expect((await getTask(db, row.id))?.nextDueAt?.toISOString()).toBe(due.toISOString());
    expect(await db.select().from(taskOccurrences).where(eq(taskOccurrences.taskId, row.id))).toHaveLength(0);
  });

  it('a one-off is done once claimed', async () => {
    const row = await insert('U1', new Date('2026-11-26T09:00:00Z'), { scheduleKind: 'once', schedule: '2026-11-26T10:00:00' });
    await claimOccurrence(db, { taskId: row.id, now: NOW, owner: 'r1', nextDue: () => undefined });
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
      const claim = await claimOccurrence(db, { taskId: row.id, now, owner: 'r1', nextDue: () => new Date(now.getTime() + 86_400_000) });
      if (claim.kind !== 'claimed') break;
      const result = await recordOccurrenceResult(db, { taskId: row.id, ok: false, error: 'boom', now, pauseAfterFailures: 3 });
      expect(result.counted).toBe(true);
      if (result.paused) pausedAt = day;
      expect((await recordOccurrenceResult(db, { taskId: row.id, ok: false, now, pauseAfterFailures: 3 })).counted).toBe(false);
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
