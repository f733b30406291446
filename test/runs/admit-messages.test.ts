/**
 * Admitting messages that arrived together, in one transaction, decides for each exactly what admitting them one
 * at a time would have: the pure plan first, then the whole write, compared on every database with the one-by-one
 * reference over seeded random bursts (retries, second events, chatter, refusals, rate limits, folds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../src/store/database';
import { rowsOf } from '../../src/store/database';
import { admitMessages, planAdmissions, type Admission, type IntakeItem } from '../../src/runs/admit-messages';
import type { AccessPolicy } from '../../src/runs/access-policy';
import type { Trigger } from '../../src/runs/trigger';
import { testDatabases } from '../support/databases';
import { seededRandom, type Random } from '../support/seeded-random';

const OPEN: AccessPolicy = { allowedChannels: [], allowedUsers: [], userRateLimitPerMinute: 0 };

function message(overrides: Partial<Trigger> & Pick<Trigger, 'messageTs'>): Trigger {
  return {
    channelId: 'C0GENERAL',
    threadTs: '1700000000.000100',
    userId: 'U0ANA',
    engages: true,
    needsEngagedThread: false,
    hasFiles: false,
    ...overrides,
  };
}

describe('planning a burst', () => {
  it('starts a run with a thread’s first message and folds the ones after it', () => {
    const plans = planAdmissions(
      [message({ messageTs: '1.1' }), message({ messageTs: '1.2', engages: false }), message({ messageTs: '1.3' })],
      { asked: new Map(), threads: new Map() },
      OPEN,
    );
    expect(plans.map((plan) => plan.kind === 'queued' && plan.startsRun)).toEqual([true, false, false]);
  });

  it('folds into a run already waiting in the thread, and does not count that as a new question', () => {
    const plans = planAdmissions(
      [message({ messageTs: '1.4' }), message({ messageTs: '1.5', threadTs: '1700000000.000200' })],
      {
        asked: new Map([['U0ANA', 1]]),
        threads: new Map([['C0GENERAL/1700000000.000100', { engaged: true, hasWaitingRun: true }]]),
      },
      { ...OPEN, userRateLimitPerMinute: 2 },
    );
    expect(plans).toEqual([
      { kind: 'queued', startsRun: false, engages: true },
      { kind: 'queued', startsRun: true, engages: true },
    ]);
  });

  it('counts the questions earlier in the burst against the rate limit', () => {
    const plans = planAdmissions(
      ['A', 'B', 'C'].map((thread, n) => message({ threadTs: `17000000${n}0.000100`, messageTs: `17000000${n}0.000100` })),
      { asked: new Map([['U0ANA', 1]]), threads: new Map() },
      { ...OPEN, userRateLimitPerMinute: 2 },
    );
    expect(plans.map((plan) => plan.kind)).toEqual(['queued', 'refused', 'refused']);
  });

  it('lets a follow-up without a mention in only once the burst has engaged its thread, and never through a refused mention', () => {
    const policy = { ...OPEN, allowedUsers: ['U0ANA'] };
    const chatter = (ts: string) => message({ messageTs: ts, userId: 'U0ANA', engages: false, needsEngagedThread: true });
    const plans = planAdmissions(
      [chatter('1.1'), message({ messageTs: '1.2', userId: 'U0EVE' }), chatter('1.3'), message({ messageTs: '1.4' }), chatter('1.5')],
      { asked: new Map(), threads: new Map() },
      policy,
    );
    expect(plans.map((plan) => plan.kind)).toEqual(['ignored', 'refused', 'ignored', 'queued', 'queued']);
  });
});

describe.each(testDatabases())('admitting a burst on $label', (database) => {
  let batched: DatabaseHandle;
  let oneByOne: DatabaseHandle;
  const seen = new Set<string>();
  beforeAll(async () => {
    [batched, oneByOne] = await Promise.all([database.open(), database.open()]);
  });
  afterAll(async () => {
    await Promise.all([batched?.close(), oneByOne?.close()]);
  });

  it.each([1, 2, 3, 4, 5, 6])('decides as one-at-a-time admission would (seed %i)', async (seed) => {
    const burst = randomBurst(seededRandom(seed), `S${seed}`);
    const policy: AccessPolicy = { allowedChannels: [`C${seed}A`, `C${seed}B`], allowedUsers: [], userRateLimitPerMinute: 3 };
    // Half the burst finds the database as the first half left it: waiting runs, engaged threads, counted users.
    const halves = [burst.slice(0, burst.length / 2), burst.slice(burst.length / 2)];
    const together: Admission[] = [];
    const alone: Admission[] = [];
    for (const half of halves) {
      together.push(...(await admitMessages(batched.db, policy, half)));
      for (const item of half) alone.push(...(await admitMessages(oneByOne.db, policy, [item])));
    }
    expect(together.map(outcome)).toEqual(alone.map(outcome));
    expect(await runsOf(batched, seed)).toEqual(await runsOf(oneByOne, seed));
    for (const admission of together) seen.add(admission.kind === 'queued' && admission.folded ? 'folded' : admission.kind);
  });

  it('has, over those bursts, met every outcome', () => {
    expect(seen).toEqual(new Set(['duplicate', 'ignored', 'refused', 'queued', 'folded']));
  });

  it('counts one user’s questions across replicas admitting at the same instant, and tells them once per window', async () => {
    const policy: AccessPolicy = { ...OPEN, userRateLimitPerMinute: 3 };
    // Two replicas, each admitting ten of one user's new questions in its own transaction, at once (on PostgreSQL
    // on two connections): without the per-user lock both would count none of the other's and admit three each.
    const burst = (replica: string) =>
      Array.from({ length: 10 }, (_, n): IntakeItem => {
        const ts = `1900000${replica === 'a' ? 1 : 2}${String(n).padStart(2, '0')}.000100`;
        return { eventId: `EvRL${replica}${n}`, trigger: message({ channelId: 'C0RATE', userId: 'U0BURST', threadTs: ts, messageTs: ts }) };
      });
    const [a, b] = await Promise.all([admitMessages(batched.db, policy, burst('a')), admitMessages(batched.db, policy, burst('b'))]);
    const all = [...a, ...b];
    expect(all.filter((admission) => admission.kind === 'queued')).toHaveLength(3);
    const refused = all.filter((admission) => admission.kind === 'refused');
    expect(refused).toHaveLength(17);
    expect(refused.filter((admission) => admission.tell)).toHaveLength(1);
    // Later in the same window: refused again, and not told again.
    const later = await admitMessages(batched.db, policy, [
      { eventId: 'EvRLlater', trigger: message({ channelId: 'C0RATE', userId: 'U0BURST', threadTs: '1900000300.000100', messageTs: '1900000300.000100' }) },
    ]);
    expect(later).toEqual([expect.objectContaining({ kind: 'refused', tell: false })]);
    // A window later (the notice a minute old), the next refusal is told again.
    await batched.db.execute(sql`update rate_limit_notices set notified_at = now() - interval '61 seconds' where user_id = 'U0BURST'`);
    const nextWindow = await admitMessages(batched.db, policy, [
      { eventId: 'EvRLnext', trigger: message({ channelId: 'C0RATE', userId: 'U0BURST', threadTs: '1900000400.000100', messageTs: '1900000400.000100' }) },
    ]);
    expect(nextWindow).toEqual([expect.objectContaining({ kind: 'refused', tell: true })]);
  });

  it('writes nothing of a burst whose transaction fails, so its retry is not taken for a duplicate', async () => {
    const items: IntakeItem[] = [
      { eventId: 'EvNUL1', trigger: message({ channelId: 'C0NUL', threadTs: '1800000000.000100', messageTs: '1800000000.000100' }) },
      { eventId: 'EvNUL2', trigger: message({ channelId: 'C0NUL\u0000', threadTs: '1800000000.000200', messageTs: '1800000000.000200' }) },
    ];
    await expect(admitMessages(batched.db, OPEN, items)).rejects.toThrow();
    const [retried] = await admitMessages(batched.db, OPEN, items.slice(0, 1));
    expect(retried).toMatchObject({ kind: 'queued', folded: false });
  });
});

/** What an admission decided, without the database's ids. */
function outcome(admission: Admission) {
  if (admission.kind === 'queued') return { kind: 'queued', folded: admission.folded, runFor: admission.run.triggerTs };
  if (admission.kind === 'refused') return { kind: 'refused', reason: admission.refusal.reason };
  return { kind: admission.kind };
}

async function runsOf(handle: DatabaseHandle, seed: number) {
  return rowsOf(
    await handle.db.execute(sql`
      select t.channel_id, t.thread_ts, t.engaged, r.trigger_ts, r.trigger_user_id, r.folded_ts, r.status
      from runs r join threads t on t.id = r.thread_id
      where t.channel_id like ${`C${seed}%`} or t.channel_id like ${`D${seed}%`}
      order by t.channel_id, t.thread_ts, r.trigger_ts`),
  );
}

/**
 * Forty deliveries over six threads in four channels (two allowed, one not, one DM) from four people: mentions
 * that start threads, follow-ups with and without a mention, Slack's retries (same event id), the second event of
 * a message (new event id), and slash-command questions (no event id).
 */
function randomBurst(random: Random, prefix: string): IntakeItem[] {
  const pick = <T,>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const seed = prefix.slice(1);
  const channels = [`C${seed}A`, `C${seed}B`, `C${seed}X`, `D${seed}D`];
  const users = ['U1', 'U2', 'U3', 'U4'].map((user) => `${prefix}${user}`);
  const threads = Array.from({ length: 6 }, (_, n) => ({ channelId: channels[n % channels.length]!, threadTs: `17100000${n}0.000100`, started: false }));
  const items: IntakeItem[] = [];
  let clock = 0;
  for (let n = 0; items.length < 40; n++) {
    const roll = random();
    if (items.length > 0 && roll < 0.12) {
      items.push(pick(items)); // Slack's retry: the same delivery again
      continue;
    }
    if (items.length > 0 && roll < 0.2) {
      const earlier = pick(items);
      items.push({ eventId: `${prefix}Ev${n}`, trigger: earlier.trigger }); // the same message as another event
      continue;
    }
    const thread = pick(threads);
    const mentions = random() < 0.6;
    const messageTs = thread.started ? `${thread.threadTs.slice(0, 10)}.${String(200 + ++clock).padStart(6, '0')}` : thread.threadTs;
    thread.started = true;
    const trigger: Trigger = {
      channelId: thread.channelId,
      threadTs: thread.threadTs,
      messageTs,
      userId: pick(users),
      engages: mentions || thread.channelId.startsWith('D'),
      needsEngagedThread: !mentions && !thread.channelId.startsWith('D'),
      hasFiles: false,
    };
    items.push({ eventId: random() < 0.1 ? undefined : `${prefix}Ev${n}`, trigger });
  }
  return items;
}
