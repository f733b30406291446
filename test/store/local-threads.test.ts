/**
 * Threads that live in the database (the terminal's, the evals'): fresh threads never merge, transcripts keep their
 * order, and a local run — born running, owned, unleased — is never taken over by a worker, however long it runs,
 * until the next local process closes it as abandoned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/store/database';
import { claimNextRun, enqueueRun, finishRun, getRun, recordAnswerPosted } from '../../src/store/run-store';
import { createFreshThread, listThreadMessages, nextTs, saveThreadMessage } from '../../src/store/transcript-store';
import { failAbandonedUnleasedRuns, mayPostUnleasedRun, startUnleasedRun } from '../../src/store/unleased-runs';
import { upsertThread } from '../../src/store/thread-store';
import { testDatabases } from '../support/databases';

describe.each(testDatabases())('local threads and runs on $label', (database) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await database.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  it('starts a new thread even when the timestamp is taken, one microsecond on', async () => {
    const first = await createFreshThread(handle.db, 'local:terminal', '1800000000.999999');
    const second = await createFreshThread(handle.db, 'local:terminal', '1800000000.999999');
    expect(second.id).not.toBe(first.id);
    expect(second.threadTs).toBe('1800000001.000000');
    expect(nextTs('1800000000.000041')).toBe('1800000000.000042');
  });

  it('keeps a transcript in time order, a message saved again replacing itself', async () => {
    const thread = await createFreshThread(handle.db, 'local:terminal', '1800000100.000000');
    await saveThreadMessage(handle.db, thread.id, { ts: '1800000100.000003', text: 'third' });
    await saveThreadMessage(handle.db, thread.id, { ts: '1800000100.000001', text: 'first' });
    await saveThreadMessage(handle.db, thread.id, { ts: '1800000100.000002', text: 'second, draft' });
    await saveThreadMessage(handle.db, thread.id, { ts: '1800000100.000002', text: 'second' });
    const messages = await listThreadMessages<{ ts: string; text: string }>(handle.db, 'local:terminal', '1800000100.000000');
    expect(messages.map((m) => m.text)).toEqual(['first', 'second', 'third']);
  });

  it('never hands a local run to a worker, while the Slack runs beside it are claimed as usual', async () => {
    const local = await createFreshThread(handle.db, 'local:terminal', '1800000200.000000');
    const run = await startUnleasedRun(handle.db, { threadId: local.id, triggerTs: '1800000200.000001', owner: 'local:host:1:abc' });
    const slack = await upsertThread(handle.db, { channelId: 'C0SLACK', threadTs: '1800000200.000000', engaged: true });
    const waiting = (await enqueueRun(handle.db, { threadId: slack.id, triggerTs: slack.threadTs })).run;

    // A lease of 0 ms: every leased run would be up for grabs at once; the unleased one has none to expire.
    const claimed = [await claimNextRun(handle.db, 'worker-1', 0), await claimNextRun(handle.db, 'worker-2', 0)];
    expect(claimed.map((r) => r?.id)).toContain(waiting.id);
    expect(claimed.map((r) => r?.id)).not.toContain(run.id);
    expect((await getRun(handle.db, run.id))?.leaseOwner).toBe('local:host:1:abc');

    expect(await mayPostUnleasedRun(handle.db, run.id, 'local:host:1:abc')).toBe(true);
    expect(await mayPostUnleasedRun(handle.db, run.id, 'local:other:2:def')).toBe(false);
    await recordAnswerPosted(handle.db, run.id, ['1800000200.000002']);
    expect(await mayPostUnleasedRun(handle.db, run.id, 'local:host:1:abc')).toBe(false);
    expect(await finishRun(handle.db, run.id, 'local:host:1:abc', { status: 'done' })).toBe(true);
    expect((await getRun(handle.db, run.id))?.status).toBe('done');
  });

  it('closes the runs a killed local process left running, and only those old enough', async () => {
    const thread = await createFreshThread(handle.db, 'local:terminal', '1800000300.000000');
    const other = await createFreshThread(handle.db, 'local:terminal', '1800000300.000000');
    const abandoned = await startUnleasedRun(handle.db, { threadId: thread.id, triggerTs: '1800000300.000001', owner: 'local:host:7:dead' });
    const live = await startUnleasedRun(handle.db, { threadId: other.id, triggerTs: '1800000300.000002', owner: 'local:host:8:live' });

    expect(await failAbandonedUnleasedRuns(handle.db, 'local:', new Date(Date.now() - 60_000), 'gone')).toBe(0);
    const closed = await failAbandonedUnleasedRuns(handle.db, 'local:host:7', new Date(Date.now() + 1_000), 'the terminal that asked was closed');
    expect(closed).toBe(1);
    expect(await getRun(handle.db, abandoned.id)).toMatchObject({ status: 'failed', error: 'the terminal that asked was closed', leaseOwner: null });
    expect((await getRun(handle.db, live.id))?.status).toBe('running');
  });
});
