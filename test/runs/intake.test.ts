/**
 * The intake: what happens to a message between Slack's acknowledgement and its durable run. Real PGlite
 * underneath; database outages are a switch in front of it (flaky-database.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';
import { createIntake, type IntakeDependencies } from '../../src/runs/intake';
import type { AccessRefusal } from '../../src/runs/access-policy';
import type { Trigger } from '../../src/runs/trigger';
import { findThread } from '../../src/store/thread-store';
import { listThreadRuns } from '../../src/store/run-store';
import { createLogger } from '../../src/logging/logger';
import { flakyDatabase } from './flaky-database';

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openDatabase({ driver: 'pglite' });
});
afterAll(() => handle?.close());

let threadCounter = 0;
let thread: string;
beforeEach(() => {
  threadCounter += 1;
  thread = `1700000${String(threadCounter).padStart(3, '0')}.000100`;
});

/** A question in the current test's thread; `n` numbers the messages in it. */
function question(n: number, overrides: Partial<Trigger> = {}): Trigger {
  return {
    channelId: 'C0GENERAL',
    threadTs: thread,
    messageTs: n === 0 ? thread : `${thread.split('.')[0]}.${String(100 + n).padStart(6, '0')}`,
    userId: 'U0ANA',
    engages: true,
    needsEngagedThread: false,
    hasFiles: false,
    ...overrides,
  };
}

function setUp(overrides: Partial<IntakeDependencies> = {}) {
  const logs: string[] = [];
  const refusals: Array<{ trigger: Trigger; refusal: AccessRefusal }> = [];
  let wakes = 0;
  const intake = createIntake({
    db: handle.db,
    logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
    policy: { allowedChannels: [], allowedUsers: [], userRateLimitPerMinute: 0 },
    onQueued: () => (wakes += 1),
    onRefused: async (trigger, refusal) => void refusals.push({ trigger, refusal }),
    retryDelaysMs: [10, 20, 40],
    ...overrides,
  });
  return { intake, logs, refusals, wakes: () => wakes };
}

async function runsOfThread() {
  const row = await findThread(handle.db, 'C0GENERAL', thread);
  return row ? listThreadRuns(handle.db, row.id) : [];
}

describe('the intake', () => {
  it('records a question as a waiting run and wakes the worker', async () => {
    const { intake, wakes } = setUp();
    intake.submit({ eventId: 'Ev1', trigger: question(0) });
    expect(await intake.drain()).toBe(0);
    const runs = await runsOfThread();
    expect(runs).toMatchObject([{ status: 'pending', triggerTs: thread, triggerUserId: 'U0ANA' }]);
    expect(wakes()).toBe(1);
  });

  it('takes in Slack’s retries of an event, and a message that came as app_mention and as message, once', async () => {
    const { intake } = setUp();
    intake.submit({ eventId: 'Ev2', trigger: question(0) });
    intake.submit({ eventId: 'Ev2', trigger: question(0) }); // X-Slack-Retry-Num: 1
    intake.submit({ eventId: 'Ev3', trigger: question(0) }); // the same message as a `message` event
    await intake.drain();
    const runs = await runsOfThread();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.foldedTs).toEqual([]);
  });

  it('writes one thread’s messages in arrival order: the first asks, the next fold into its run', async () => {
    const { intake } = setUp();
    for (const n of [0, 1, 2]) intake.submit({ eventId: `Ev-order-${threadCounter}-${n}`, trigger: question(n) });
    await intake.drain();
    const runs = await runsOfThread();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.triggerTs).toBe(question(0).messageTs);
    expect(runs[0]!.foldedTs).toEqual([question(1).messageTs, question(2).messageTs]);
  });

  it('writes a burst that arrives together in one transaction, each question with its own run', async () => {
    let transactions = 0;
    const counting = new Proxy(handle.db, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'transaction') return value;
        return (...args: unknown[]) => {
          transactions += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const { intake, wakes } = setUp({ db: counting });
    const threads = Array.from({ length: 30 }, (_, n) => `17200000${String(n).padStart(2, '0')}.000100`);
    for (const [n, ts] of threads.entries()) intake.submit({ eventId: `Ev-burst-${n}`, trigger: question(0, { threadTs: ts, messageTs: ts }) });
    await intake.drain();
    expect(transactions).toBe(1);
    expect(wakes()).toBe(30);
    for (const ts of threads) {
      const row = await findThread(handle.db, 'C0GENERAL', ts);
      expect(await listThreadRuns(handle.db, row!.id)).toMatchObject([{ status: 'pending', triggerTs: ts }]);
    }
  });

  it('gives up at once on a message the database refuses, with a line naming it, and writes the rest of its burst', async () => {
    const { intake, logs } = setUp();
    const other = `1730000000.000${threadCounter}`;
    intake.submit({ eventId: `Ev-good-${threadCounter}`, trigger: question(0) });
    // A NUL byte is not valid in PostgreSQL text: no retry can ever write this one.
    intake.submit({ eventId: `Ev-bad-${threadCounter}`, trigger: question(0, { channelId: 'C0BAD\u0000', threadTs: other, messageTs: other }) });
    intake.submit({ eventId: `Ev-next-${threadCounter}`, trigger: question(1) });
    expect(await intake.drain()).toBe(0);
    const runs = await runsOfThread();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.foldedTs).toEqual([question(1).messageTs]);
    const refused = logs.map((line) => JSON.parse(line)).filter((line) => line.message === 'the database refused an incoming message; it will not be answered');
    expect(refused).toMatchObject([{ level: 'error', ts: other }]);
    expect(logs.some((line) => line.includes('could not record an incoming message; retrying'))).toBe(false);
  });

  it('keeps a message through a brief database outage and records it when the database is back', async () => {
    const flaky = flakyDatabase(handle.db);
    const { intake, logs } = setUp({ db: flaky.db });
    flaky.failNext(3);
    intake.submit({ eventId: `Ev-outage-${threadCounter}`, trigger: question(0) });
    await intake.drain();
    expect(flaky.refused).toBe(3);
    expect(await runsOfThread()).toHaveLength(1);
    // One warning for the message, not one per retry.
    expect(logs.filter((line) => line.includes('"level":"warn"') && line.includes('could not record an incoming message'))).toHaveLength(1);
  });

  it('retries a message whose write broke halfway from the start, instead of taking its own event for a duplicate', async () => {
    const flaky = flakyDatabase(handle.db);
    const { intake, logs } = setUp({ db: flaky.db });
    flaky.failMidTransaction(3); // event, message and thread written, then the connection drops
    intake.submit({ eventId: `Ev-half-${threadCounter}`, trigger: question(0) });
    await intake.drain();
    expect(logs.some((line) => line.includes('could not record an incoming message; retrying'))).toBe(true);
    expect(await runsOfThread()).toHaveLength(1);
  });

  it('holds a bounded number of messages while the database is down, and names the ones it could not keep', async () => {
    const flaky = flakyDatabase(handle.db);
    const { intake, logs } = setUp({ db: flaky.db, maxHeld: 3 });
    flaky.down();
    for (const n of [0, 1, 2, 3, 4]) intake.submit({ eventId: `Ev-full-${threadCounter}-${n}`, trigger: question(n) });
    expect(intake.pending()).toBe(3);
    const dropped = logs.filter((line) => line.includes('too many messages waiting for the database'));
    expect(dropped.map((line) => JSON.parse(line).ts)).toEqual([question(3).messageTs, question(4).messageTs]);

    // Shutting down with the database still away: bounded wait, then each lost message is named once.
    expect(await intake.drain(50)).toBe(3);
    expect(logs.filter((line) => line.includes('shutting down before an incoming message could be recorded'))).toHaveLength(3);
    flaky.up();
    expect(await runsOfThread()).toHaveLength(0);
  });

  it('gives up on a message after its hold time, with a line saying so', async () => {
    const flaky = flakyDatabase(handle.db);
    const { intake, logs } = setUp({ db: flaky.db, maxHoldMs: 30 });
    flaky.down();
    intake.submit({ eventId: `Ev-old-${threadCounter}`, trigger: question(0) });
    expect(await intake.drain()).toBe(0);
    const gaveUp = logs.find((line) => line.includes('gave up recording an incoming message'));
    expect(JSON.parse(gaveUp!)).toMatchObject({ level: 'error', channel: 'C0GENERAL', ts: thread });
  });

  it('refuses politely outside the allowed channels and users, and queues nothing for them', async () => {
    const { intake, refusals } = setUp({ policy: { allowedChannels: ['C0ALLOWED'], allowedUsers: ['U0ANA'], userRateLimitPerMinute: 0 } });
    intake.submit({ eventId: `Ev-ch-${threadCounter}`, trigger: question(0) });
    intake.submit({ eventId: `Ev-dm-${threadCounter}`, trigger: question(0, { channelId: 'D0BEN', userId: 'U0BEN' }) });
    await intake.drain();
    expect(refusals.map((r) => r.refusal.reason)).toEqual(['channel_not_allowed', 'user_not_allowed']);
    expect(refusals[0]!.refusal.message).toMatch(/^Sorry, I’m not set up to answer in this channel/);
    expect(await runsOfThread()).toHaveLength(0);
  });

  it('answers a user’s questions up to the rate limit, then says why it stops', async () => {
    const { intake, refusals } = setUp({ policy: { allowedChannels: [], allowedUsers: [], userRateLimitPerMinute: 2 } });
    const user = `U0RATE${threadCounter}`;
    for (const n of [1, 2, 3]) intake.submit({ eventId: `Ev-rate-${threadCounter}-${n}`, trigger: question(0, { userId: user, threadTs: `17100000${n}0.000100`, messageTs: `17100000${n}0.000100` }) });
    await intake.drain();
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.refusal).toMatchObject({ reason: 'rate_limited', message: expect.stringContaining('2 questions in the last minute') });
  });

  it('ignores a follow-up without a mention in a thread the bot was never brought into', async () => {
    const { intake, wakes } = setUp();
    intake.submit({ eventId: `Ev-chat-${threadCounter}`, trigger: question(1, { engages: false, needsEngagedThread: true }) });
    await intake.drain();
    expect(await runsOfThread()).toHaveLength(0);
    expect(wakes()).toBe(0);
  });
});
