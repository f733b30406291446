/**
 * The run worker over real PGlite: what it claims, when it stops a run, what it records. The work of a run is a
 * stand-in the test finishes by hand, so every step is the test's to order.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/app/database/open-database';
import { rowsOf, type DatabaseHandle } from '../../src/store/database';
import { createRunWorker, type RunWorker, type RunWorkerOptions } from '../../src/runs/run-worker';
import { RunInterrupted } from '../../src/runs/run-interrupted';
import { claimNextRun, enqueueRun, getRun, requestCancel, type RunOutcome, type RunRow } from '../../src/store/run-store';
import { upsertThread } from '../../src/store/thread-store';
import { createLogger } from '../../src/logging/logger';
import { flakyDatabase } from './flaky-database';
import { eventually } from '../support/eventually';
import { createActivity } from '../../src/core/activity';

let handle: DatabaseHandle;
const workers: RunWorker[] = [];
beforeAll(async () => {
  handle = await openDatabase({ driver: 'pglite' });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop(0)));
  // Runs a test left unfinished would be resumed by the next test's worker.
  await handle.db.execute(sql`delete from runs`);
});
afterAll(() => handle?.close());

let threadCounter = 0;
async function newThread() {
  threadCounter += 1;
  return (await upsertThread(handle.db, { channelId: 'C1', threadTs: `1700000000.${String(threadCounter).padStart(6, '0')}`, engaged: true })).id;
}

/** Runs that start and wait until the test finishes them (or their signal aborts, which rejects them). */
function handWork() {
  const started: RunRow[] = [];
  const aborted = new Map<number, unknown>();
  const finishers = new Map<number, (outcome: RunOutcome) => void>();
  const execute = (run: RunRow, signal: AbortSignal) =>
    new Promise<RunOutcome>((resolve, reject) => {
      started.push(run);
      finishers.set(run.id, resolve);
      signal.addEventListener('abort', () => {
        aborted.set(run.id, signal.reason);
        if (signal.reason instanceof RunInterrupted && signal.reason.kind === 'cancelled') resolve({ status: 'cancelled', error: 'cancelled by a user' });
        else reject(signal.reason);
      });
    });
  return { execute, started, aborted, finish: (runId: number, outcome: RunOutcome = { status: 'done' }) => finishers.get(runId)!(outcome) };
}

function startWorker(options: Partial<RunWorkerOptions> & Pick<RunWorkerOptions, 'execute'>) {
  const logs: string[] = [];
  const activity = createActivity();
  const worker = createRunWorker({
    db: handle.db,
    owner: 'w1',
    logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
    leaseMs: 60_000,
    pollMs: 50,
    concurrency: 4,
    activity,
    ...options,
  });
  workers.push(worker);
  worker.start();
  return { worker, logs, activity };
}

describe('the run worker', () => {
  it('answers one run per thread at a time; messages that arrive meanwhile are answered together by the next run', async () => {
    const thread = await newThread();
    const work = handWork();
    const first = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000001' });
    const worked = startWorker({ execute: work.execute });
    await eventually(() => work.started.length === 1);

    const second = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000002' });
    const third = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000003' });
    expect(third).toMatchObject({ folded: true, run: { id: second.run.id } });
    const { worker } = worked;
    expect(await worker.poll()).toBe(0); // a poll now: still nothing parallel in this thread
    expect(work.started.map((run) => run.id)).toEqual([first.run.id]);

    work.finish(first.run.id);
    await eventually(() => work.started.length === 2);
    expect(work.started[1]).toMatchObject({ id: second.run.id, triggerTs: '1.000002', foldedTs: ['1.000003'] });
    work.finish(second.run.id);
    await eventually(async () => (await getRun(handle.db, second.run.id))!.status === 'done');
    expect((await getRun(handle.db, first.run.id))!.status).toBe('done');
  });

  it('works on different threads side by side, up to its concurrency', async () => {
    const work = handWork();
    const threads = [await newThread(), await newThread(), await newThread()];
    for (const threadId of threads) await enqueueRun(handle.db, { threadId, triggerTs: '1.000001' });
    const { worker } = startWorker({ execute: work.execute, concurrency: 2 });
    await eventually(() => work.started.length === 2);
    expect(await worker.poll()).toBe(0);
    expect(work.started).toHaveLength(2);
    work.finish(work.started[0]!.id);
    await eventually(() => work.started.length === 3);
    expect(new Set(work.started.map((run) => run.threadId))).toEqual(new Set(threads));
  });

  it('stops a run whose lease another replica took over, and leaves its outcome to that replica', async () => {
    const thread = await newThread();
    const work = handWork();
    const { run } = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000001' });
    startWorker({ execute: work.execute, leaseMs: 900 });
    await eventually(() => work.started.length === 1);

    // The lease ran out (say the worker stalled) and another replica claimed the run: in one transaction, so that
    // the worker's heartbeat cannot renew the lease in between.
    const claimed = await handle.db.transaction(async (tx) => {
      await tx.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${run.id}`);
      return claimNextRun(tx as unknown as typeof handle.db, 'w2', 60_000);
    });
    expect(claimed?.id).toBe(run.id);

    await eventually(() => work.aborted.has(run.id));
    expect(work.aborted.get(run.id)).toMatchObject({ kind: 'lease_lost' });
    expect(await getRun(handle.db, run.id)).toMatchObject({ status: 'running', leaseOwner: 'w2', attempts: 2 });
  });

  it('stops a run at its next heartbeat when someone cancels it on another replica', async () => {
    const thread = await newThread();
    const work = handWork();
    const { run } = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000001' });
    startWorker({ execute: work.execute, leaseMs: 900 });
    await eventually(() => work.started.length === 1);
    expect(await requestCancel(handle.db, run.id)).toBe('flagged');
    await eventually(async () => (await getRun(handle.db, run.id))!.status === 'cancelled');
    expect(work.aborted.get(run.id)).toMatchObject({ kind: 'cancelled' });
  });

  it('records a run that failed as failed, and does not try it again', async () => {
    const thread = await newThread();
    let calls = 0;
    const { run } = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000001' });
    const { worker, activity } = startWorker({
      execute: async () => {
        calls += 1;
        throw new Error('the model said no');
      },
    });
    await eventually(async () => (await getRun(handle.db, run.id))!.status === 'failed');
    await activity.idle();
    expect(await worker.poll()).toBe(0);
    expect(calls).toBe(1);
    expect((await getRun(handle.db, run.id))!.error).toBe('the model said no');
  });

  it('records the outcome through a brief database outage at the end of a run', async () => {
    const thread = await newThread();
    const work = handWork();
    const flaky = flakyDatabase(handle.db);
    const { run } = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000001' });
    startWorker({ db: flaky.db, execute: work.execute, pollMs: 60_000, finishRetryDelaysMs: [10, 10, 10] });
    await eventually(() => work.started.length === 1);
    flaky.failNext(2);
    work.finish(run.id, { status: 'done', answerTs: ['1.000009'] });
    await eventually(async () => (await getRun(handle.db, run.id))!.status === 'done');
    expect(flaky.refused).toBe(2);
    expect((await getRun(handle.db, run.id))!.answerTs).toEqual(['1.000009']);
  });

  it('stops a run it could not renew for a whole lease, before another replica takes it over and answers too', async () => {
    const thread = await newThread();
    const work = handWork();
    const flaky = flakyDatabase(handle.db);
    const { run } = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000001' });
    startWorker({ db: flaky.db, execute: work.execute, leaseMs: 600, pollMs: 60_000 });
    await eventually(() => work.started.length === 1);
    flaky.down();
    await eventually(() => work.aborted.has(run.id), { timeoutMs: 5_000 });
    flaky.up();
    expect(work.aborted.get(run.id)).toMatchObject({ kind: 'lease_lost' });
  });
});

describe('stopping the worker', () => {
  it('lets a running answer finish within the grace period', async () => {
    const thread = await newThread();
    const work = handWork();
    const { run } = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000001' });
    const { worker } = startWorker({ execute: work.execute });
    await eventually(() => work.started.length === 1);
    const stopped = worker.stop(10_000);
    work.finish(run.id); // after stop() began
    await stopped;
    expect((await getRun(handle.db, run.id))!.status).toBe('done');
  });

  it('claims nothing new once stopping', async () => {
    const work = handWork();
    const { worker, activity } = startWorker({ execute: work.execute });
    await worker.stop(0);
    await enqueueRun(handle.db, { threadId: await newThread(), triggerTs: '1.000001' });
    worker.wake();
    await activity.idle(); // a claim the wake began, had it begun one, is over by now
    expect(work.started).toHaveLength(0);
  });

  it('interrupts answers still running when the grace period is over and hands them to the next start at once', async () => {
    const thread = await newThread();
    const work = handWork();
    const { run } = await enqueueRun(handle.db, { threadId: thread, triggerTs: '1.000001' });
    const { worker } = startWorker({ execute: work.execute });
    await eventually(() => work.started.length === 1);
    await worker.stop(100);

    expect(work.aborted.get(run.id)).toMatchObject({ kind: 'shutdown' });
    const [row] = rowsOf<{ status: string; expired: boolean }>(
      await handle.db.execute(sql`select status, lease_expires_at <= now() as expired from runs where id = ${run.id}`),
    );
    expect(row).toEqual({ status: 'running', expired: true });
    // The next start does not wait out the old lease (60 s here).
    const resumed = await claimNextRun(handle.db, 'next-start', 60_000);
    expect(resumed).toMatchObject({ id: run.id, attempts: 2 });
  });
});
