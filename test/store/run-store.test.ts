/**
 * The durable run queue, on PGlite and (with TEST_DATABASE_URL) on PostgreSQL 15: one waiting and one working run
 * per thread, messages folded into the waiting run, leases that a dead worker loses and a live one keeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../src/store/database';
import {
  claimNextRun,
  claimNextRuns,
  enqueueRun,
  finishRun,
  getRun,
  listThreadRuns,
  mayPostAnswer,
  recordAnswerPosted,
  recordDraftMessage,
  clearDraftMessages,
  releaseLease,
  renewLease,
  requestCancel,
} from '../../src/store/run-store';
import { upsertThread } from '../../src/store/thread-store';
import { testDatabases } from '../support/databases';

const LEASE_MS = 60_000;

describe.each(testDatabases())('the run queue on $label', (database) => {
  let handle: DatabaseHandle;
  let threadCount = 0;

  beforeAll(async () => {
    handle = await database.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  async function newThread() {
    threadCount += 1;
    const thread = await upsertThread(handle.db, { channelId: 'C1', threadTs: `1700000000.${String(threadCount).padStart(6, '0')}`, engaged: true });
    return thread.id;
  }

  /** Ends the lease of a run now, as if its worker had died a lease ago. */
  async function expireLease(runId: number) {
    await handle.db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${runId}`);
  }

  /** Claims until the queue holds nothing claimable, finishing nothing. */
  async function claimAll(owner: string) {
    const claimed = [];
    for (let run = await claimNextRun(handle.db, owner, LEASE_MS); run; run = await claimNextRun(handle.db, owner, LEASE_MS)) claimed.push(run);
    return claimed;
  }

  it('writes a pending run for a question; the same message again returns that run, not a second one', async () => {
    const threadId = await newThread();
    const first = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001', triggerUserId: 'U1' });
    const again = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001', triggerUserId: 'U1' });
    expect(first.run.status).toBe('pending');
    expect(again.run.id).toBe(first.run.id);
    expect(await listThreadRuns(handle.db, threadId)).toHaveLength(1);
  });

  it('folds messages that arrive while a run waits into that run', async () => {
    const threadId = await newThread();
    const asked = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001' });
    const second = await enqueueRun(handle.db, { threadId, triggerTs: '1.000002' });
    const third = await enqueueRun(handle.db, { threadId, triggerTs: '1.000003' });
    const againThird = await enqueueRun(handle.db, { threadId, triggerTs: '1.000003' });
    expect([second.folded, third.folded, againThird.folded]).toEqual([true, true, true]);
    expect(third.run.id).toBe(asked.run.id);
    expect((await getRun(handle.db, asked.run.id))!.foldedTs).toEqual(['1.000002', '1.000003']);
  });

  it('gives a message that arrives after the waiting run was claimed a run of its own, behind the first', async () => {
    const threadId = await newThread();
    const first = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001' });
    const claimed = (await claimAll('w1')).find((run) => run.threadId === threadId);
    expect(claimed?.id).toBe(first.run.id);

    const next = await enqueueRun(handle.db, { threadId, triggerTs: '1.000002' });
    expect(next.folded).toBe(false);
    expect(next.run.id).not.toBe(first.run.id);
    expect((await claimAll('w2')).some((run) => run.threadId === threadId)).toBe(false);

    await finishRun(handle.db, first.run.id, 'w1', { status: 'done' });
    const after = (await claimAll('w2')).find((run) => run.threadId === threadId);
    expect(after?.id).toBe(next.run.id);
  });

  it('claims runs of different threads side by side, each leased to its claimer', async () => {
    const [a, b] = [await newThread(), await newThread()];
    await enqueueRun(handle.db, { threadId: a, triggerTs: '1.000001' });
    await enqueueRun(handle.db, { threadId: b, triggerTs: '1.000001' });
    const claimed = (await claimAll('w1')).filter((run) => run.threadId === a || run.threadId === b);
    expect(claimed.map((run) => run.threadId).sort()).toEqual([a, b].sort());
    for (const run of claimed) {
      expect(run).toMatchObject({ status: 'running', leaseOwner: 'w1', attempts: 1 });
      await finishRun(handle.db, run.id, 'w1', { status: 'done' });
    }
  });

  it('takes over a run whose worker stopped renewing, and resumes it before the run waiting behind it', async () => {
    const threadId = await newThread();
    const first = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001' });
    await claimAll('dead');
    const waiting = await enqueueRun(handle.db, { threadId, triggerTs: '1.000002' });
    await expireLease(first.run.id);

    const taken = (await claimAll('alive')).filter((run) => run.threadId === threadId);
    expect(taken.map((run) => run.id)).toEqual([first.run.id]);
    expect(taken[0]).toMatchObject({ leaseOwner: 'alive', attempts: 2 });

    // The dead worker comes back: its lease is gone, so it can neither renew, post nor finish.
    expect(await renewLease(handle.db, first.run.id, 'dead', LEASE_MS)).toEqual({ held: false, cancelRequested: false });
    expect(await mayPostAnswer(handle.db, first.run.id, 'dead')).toBe(false);
    expect(await finishRun(handle.db, first.run.id, 'dead', { status: 'failed', error: 'late' })).toBe(false);
    expect(await finishRun(handle.db, first.run.id, 'alive', { status: 'done' })).toBe(true);
    expect((await claimAll('alive')).map((run) => run.id)).toContain(waiting.run.id);
  });

  it('claims the free slots’ worth of runs in one statement, oldest first, never two of one thread', async () => {
    const [a, b, c] = [await newThread(), await newThread(), await newThread()];
    const first = await enqueueRun(handle.db, { threadId: a, triggerTs: '1.000001' });
    await claimAll('dead');
    const behind = await enqueueRun(handle.db, { threadId: a, triggerTs: '1.000002' });
    await expireLease(first.run.id);
    const inB = await enqueueRun(handle.db, { threadId: b, triggerTs: '1.000001' });
    const inC = await enqueueRun(handle.db, { threadId: c, triggerTs: '1.000001' });

    const claimed = (await claimNextRuns(handle.db, 'w2', LEASE_MS, 10)).filter((run) => [a, b, c].includes(run.threadId));
    // Thread a's dead run is taken over; the run waiting behind it is not started beside it.
    expect(claimed.map((run) => run.id)).toEqual([first.run.id, inB.run.id, inC.run.id]);
    expect(claimed.every((run) => run.leaseOwner === 'w2' && run.status === 'running')).toBe(true);
    expect(claimed[0]).toMatchObject({ attempts: 2 });
    expect((await claimNextRuns(handle.db, 'w2', LEASE_MS, 10)).map((run) => run.id)).not.toContain(behind.run.id);
    for (const run of claimed) await finishRun(handle.db, run.id, 'w2', { status: 'done' });
    expect((await claimAll('w2')).map((run) => run.id)).toContain(behind.run.id);
  });

  it('does not take over a run whose worker keeps renewing its lease', async () => {
    const threadId = await newThread();
    const { run } = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001' });
    await claimAll('w1');
    expect(await renewLease(handle.db, run.id, 'w1', LEASE_MS)).toEqual({ held: true, cancelRequested: false });
    expect((await claimAll('w2')).some((claimed) => claimed.id === run.id)).toBe(false);
    expect((await getRun(handle.db, run.id))!.leaseOwner).toBe('w1');
  });

  it('hands a released run to the next claimer at once (shutdown), without waiting for the lease', async () => {
    const threadId = await newThread();
    const { run } = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001' });
    await claimAll('stopping');
    expect(await releaseLease(handle.db, run.id, 'stopping')).toBe(true);
    expect(await mayPostAnswer(handle.db, run.id, 'stopping')).toBe(false);
    const resumed = (await claimAll('next')).find((claimed) => claimed.id === run.id);
    expect(resumed).toMatchObject({ leaseOwner: 'next', attempts: 2 });
  });

  it('lets only the lease holder post, and only once', async () => {
    const threadId = await newThread();
    const { run } = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001' });
    await claimAll('w1');
    expect(await mayPostAnswer(handle.db, run.id, 'w2')).toBe(false);
    expect(await mayPostAnswer(handle.db, run.id, 'w1')).toBe(true);
    await recordAnswerPosted(handle.db, run.id, ['1.000009']);
    expect(await mayPostAnswer(handle.db, run.id, 'w1')).toBe(false);
  });

  it('keeps the messages an answer started until the answer is recorded, in order', async () => {
    const threadId = await newThread();
    const { run } = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001' });
    await recordDraftMessage(handle.db, run.id, '1.000010');
    await recordDraftMessage(handle.db, run.id, '1.000011');
    expect((await getRun(handle.db, run.id))!.draftTs).toEqual(['1.000010', '1.000011']);
    await clearDraftMessages(handle.db, run.id);
    expect((await getRun(handle.db, run.id))!.draftTs).toEqual([]);
    await recordDraftMessage(handle.db, run.id, '1.000012');
    await recordAnswerPosted(handle.db, run.id, ['1.000012']);
    expect(await getRun(handle.db, run.id)).toMatchObject({ draftTs: [], answerTs: ['1.000012'] });
  });

  it('cancels a waiting run at once and flags a working one for its worker’s next heartbeat', async () => {
    const threadId = await newThread();
    const working = await enqueueRun(handle.db, { threadId, triggerTs: '1.000001' });
    await claimAll('w1');
    const waiting = await enqueueRun(handle.db, { threadId, triggerTs: '1.000002' });
    expect(await requestCancel(handle.db, waiting.run.id)).toBe('cancelled');
    expect(await requestCancel(handle.db, working.run.id)).toBe('flagged');
    expect(await renewLease(handle.db, working.run.id, 'w1', LEASE_MS)).toEqual({ held: true, cancelRequested: true });
  });

  it('under concurrent questions and claimers, answers every message in exactly one run and never two runs of a thread at once', async () => {
    const threadIds = await Promise.all(Array.from({ length: 8 }, () => newThread()));
    const messages = threadIds.flatMap((threadId) => Array.from({ length: 5 }, (_, i) => ({ threadId, triggerTs: `2.00000${i + 1}` })));
    const busy = new Set<number>();
    const overlaps: number[] = [];
    const executed: number[] = [];
    let enqueued = false;

    const claimer = async (owner: string) => {
      for (;;) {
        const run = await claimNextRun(handle.db, owner, LEASE_MS);
        if (!run) {
          if (enqueued && (await pendingOrRunning()) === 0) return;
          await new Promise((resolve) => setTimeout(resolve, 5));
          continue;
        }
        if (busy.has(run.threadId)) overlaps.push(run.threadId);
        busy.add(run.threadId);
        await new Promise((resolve) => setTimeout(resolve, 2));
        busy.delete(run.threadId);
        executed.push(run.id);
        expect(await finishRun(handle.db, run.id, owner, { status: 'done' })).toBe(true);
      }
    };
    const pendingOrRunning = async () => {
      const runs = (await Promise.all(threadIds.map((id) => listThreadRuns(handle.db, id)))).flat();
      return runs.filter((run) => run.status === 'pending' || run.status === 'running').length;
    };
    const claimers = ['a', 'b', 'c'].map(claimer);
    await Promise.all(messages.map((message) => enqueueRun(handle.db, message)));
    enqueued = true;
    await Promise.all(claimers);

    const runs = (await Promise.all(threadIds.map((id) => listThreadRuns(handle.db, id)))).flat();
    const answered = runs.flatMap((run) => [run.triggerTs, ...run.foldedTs].map((ts) => `${run.threadId}/${ts}`));
    expect(answered.sort()).toEqual(messages.map((m) => `${m.threadId}/${m.triggerTs}`).sort());
    expect(runs.every((run) => run.status === 'done')).toBe(true);
    expect(new Set(executed).size).toBe(executed.length);
    expect(overlaps).toEqual([]);
  });
});
