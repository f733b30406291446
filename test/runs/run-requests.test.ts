/** What an edge may ask of a run, against the real store (PGlite in memory). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunRequests, type RunRequests } from '../../src/runs/run-requests';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';
import { claimNextRun, enqueueRun, getRun, insertWaitingRuns, listFeedback } from '../../src/store/run-store';
import { claimDueOccurrences, getTask, insertTask, occurrenceOfRun } from '../../src/store/task-store';
import { upsertThreads } from '../../src/store/thread-store';

const NOW = new Date('2026-11-27T09:00:00Z');
let database: DatabaseHandle;
let requests: RunRequests;
beforeAll(async () => {
  database = await openDatabase({ driver: 'pglite' });
  requests = createRunRequests(database.db, { now: () => NOW.getTime() });
});
afterAll(() => database?.close());

async function newRun(channelId: string, triggerTs: string) {
  const [thread] = await upsertThreads(database.db, [{ channelId, threadTs: triggerTs }]);
  return (await enqueueRun(database.db, { threadId: thread!.id, triggerTs, triggerUserId: 'U0ANA' })).run;
}

describe('what an edge may ask of a run', () => {
  it('finds the run working on a question, and cancels a waiting one at once', async () => {
    const run = await newRun('C0REQ1', '1700000000.000100');
    expect(await requests.activeRunOn('C0REQ1', '1700000000.000100')).toBe(run.id);
    expect(await requests.activeRunOn('C0REQ1', '1700000000.999999')).toBeUndefined();
    expect(await requests.activeRunOn('C0OTHER', '1700000000.000100')).toBeUndefined();

    expect(await requests.cancel(run.id)).toBe('cancelled');
    expect((await getRun(database.db, run.id))?.status).toBe('cancelled');
    expect(await requests.activeRunOn('C0REQ1', '1700000000.000100')).toBeUndefined();
    expect(await requests.cancel(run.id)).toBe('finished');
  });

  it('flags a working run, which stops at its next heartbeat', async () => {
    const run = await newRun('C0REQ2', '1700000001.000100');
    const claimed = await claimNextRun(database.db, 'worker-1', 60_000);
    expect(claimed?.id).toBe(run.id);
    expect(await requests.cancel(run.id)).toBe('flagged');
    expect((await getRun(database.db, run.id))?.cancelRequested).toBe(true);
  });

  it('records a scheduled occurrence stopped before its run began as skipped, not as the task failing', async () => {
    const inserted = await insertTask(
      database.db,
      { teamId: 'T1', channelId: 'C0REQ4', threadTs: '1700000003.000100', ownerId: 'U0ANA', prompt: 'digest', scheduleKind: 'cron', schedule: '0 9 * * *', timeZone: 'UTC', nextDueAt: NOW },
      { maxPerPerson: 10, now: NOW },
    );
    if (!inserted.ok) throw new Error('task not inserted');
    const { claimed } = await claimDueOccurrences(database.db, {
      now: NOW,
      owner: 'replica-1',
      limit: 10,
      nextDue: () => new Date(NOW.getTime() + 24 * 3_600_000),
      enqueue: async (occurrences, tx) => {
        const [thread] = await upsertThreads(tx, [{ channelId: 'C0REQ4', threadTs: '1700000003.000100' }]);
        return (await insertWaitingRuns(tx, occurrences.map(({ occurrence }) => ({ threadId: thread!.id, triggerTs: `task:${occurrence.taskId}` })))).map((run) => run?.id);
      },
    });
    const runId = claimed[0]!.occurrence.runId!;

    expect(await requests.cancel(runId)).toBe('cancelled');

    expect((await occurrenceOfRun(database.db, runId))?.occurrence).toMatchObject({ result: 'skipped', error: 'cancelled by a user' });
    expect(await getTask(database.db, inserted.task.id)).toMatchObject({ state: 'active', consecutiveFailures: 0, lastResult: 'skipped' });
  });

  it('keeps one verdict per person on an answer, the latest', async () => {
    const run = await newRun('C0REQ3', '1700000002.000100');
    await requests.saveFeedback(run.id, 'U0ANA', 'negative');
    await requests.saveFeedback(run.id, 'U0ANA', 'positive');
    await requests.saveFeedback(run.id, 'U0BEN', 'negative');
    const rows = await listFeedback(database.db, run.id);
    expect(rows.map((row) => [row.userId, row.value]).sort()).toEqual([
      ['U0ANA', 'positive'],
      ['U0BEN', 'negative'],
    ]);
  });
});
