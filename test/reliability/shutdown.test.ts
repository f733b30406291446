/**
 * Stopping with answers in flight (what SIGTERM does, in-process): an answer that fits in the grace period is
 * finished; one that does not (waiting for the model, or half-way through streaming its answer) is handed back and
 * finished once by the next start, which tells the thread.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL, startHarness, type Harness } from '../support/harness';
import { findThread } from '../../src/store/thread-store';
import { listThreadRuns } from '../../src/store/run-store';

let h: Harness;
beforeAll(async () => {
  // A long lease: resuming must not depend on the old lease running out.
  h = await startHarness({ start: { leaseMs: 60_000 } });
});
afterAll(() => h.close());
beforeEach(() => {
  h.slack.reset();
  h.model.reset();
});

const RESUMING_NOTE = /interrupted while answering — picking this up again/;

describe('shutdown', () => {
  it('hands an answer still running when the grace period ends to the next start, which finishes it once and says so', async () => {
    h.model.enqueue({ delayMs: 5_000, then: { text: 'Too slow to be posted.' } }, { text: 'Resumed and answered.' });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> a long question` });
    await h.model.waitForRequests(1);

    await h.restart(); // stop with a 1 s grace, then start again on the same database

    expect(await h.answers(CHANNEL, ts)).toEqual(['Resumed and answered.']);
    await h.app.idle();
    const texts = h.slack.botMessages(CHANNEL, ts).map((m) => m.text ?? '');
    expect(texts.filter((text) => RESUMING_NOTE.test(text))).toHaveLength(1);
    expect(texts.join('\n')).not.toContain('Too slow to be posted.');
    const thread = await findThread(h.database.db, CHANNEL, ts);
    expect(await listThreadRuns(h.database.db, thread!.id)).toMatchObject([{ status: 'done', attempts: 2 }]);
  });

  it('hands back an answer still streaming when the grace period ends, instead of posting its first half as the answer', async () => {
    h.model.enqueue(
      { text: 'Half of this answer streams out, and then the grace period ends before the rest of it arrives.', stallAfterChunks: 8 },
      { text: 'Answered in full after the restart.' },
    );
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> tell me everything` });
    await h.slack.waitFor(() => h.slack.botMessages(CHANNEL, ts).some((m) => /^Half of this/.test(m.text ?? '')), 20_000);

    await h.restart(); // stop with a 1 s grace, then start again on the same database

    expect(await h.answers(CHANNEL, ts)).toEqual([expect.stringContaining('Answered in full after the restart.')]);
    await h.app.idle();
    const texts = h.slack.botMessages(CHANNEL, ts).map((m) => m.text ?? '');
    expect(texts.filter((text) => RESUMING_NOTE.test(text))).toHaveLength(1);
    expect(texts.filter((text) => text.includes('Half of this'))).toEqual([]);
    const thread = await findThread(h.database.db, CHANNEL, ts);
    expect(await listThreadRuns(h.database.db, thread!.id)).toMatchObject([{ status: 'done', attempts: 2 }]);
  });

  it('lets an answer in flight finish within the grace period before stopping', async () => {
    h.model.enqueue({ delayMs: 1_500, then: { text: 'Finished before stopping.' } });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> quick one before you go` });
    await h.model.waitForRequests(1);

    await h.app.stop(15_000);

    const answered = h.slack.botMessages(CHANNEL, ts).filter((m) => m.metadata === undefined);
    expect(answered.map((m) => m.text)).toEqual([expect.stringContaining('Finished before stopping.')]);
    const thread = await findThread(h.database.db, CHANNEL, ts);
    expect(await listThreadRuns(h.database.db, thread!.id)).toMatchObject([{ status: 'done', attempts: 1 }]);
  });
});
