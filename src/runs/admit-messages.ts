import { sql } from 'drizzle-orm';
import type { Database } from '../store/database';
import { rateLimitNotices } from '../store/schema';
import { claimEvents, claimMessages } from '../store/event-store';
import { readThreadFacts, threadKeyOf, upsertThreads, type ThreadFacts } from '../store/thread-store';
import { enqueueRun, insertWaitingRuns, type RunRow } from '../store/run-store';
import { settleRecorded } from '../store/delivery-store';
import type { Trigger } from './trigger';
import { countRecentQuestions, refusalFor, type AccessPolicy, type AccessRefusal } from './access-policy';
import { readTodaysSpend, insertRefusedRuns, type TodaysSpend } from '../store/spend-limit-store';
import { hasDailyLimits, limitRefusalFor } from './spend-limit';

export interface IntakeItem {
  /** Slack's event id; absent for slash commands (their question message is new, so nothing to dedupe). */
  eventId?: string;
  trigger: Trigger;
  /** The recorded Events API delivery it came in (slack_deliveries): deleted in the same transaction as its run. */
  deliveryId?: string;
  /** The recorded `/ask` question (pending_questions): likewise. */
  questionId?: string;
}

export type Admission =
  | { kind: 'duplicate' }
  | { kind: 'ignored' }
  /** `tell`: whether to tell the user (a rate-limit refusal is told once per user per window, not per message). */
  | { kind: 'refused'; refusal: AccessRefusal; tell: boolean }
  | { kind: 'queued'; run: RunRow; folded: boolean; threadId: number };

/**
 * Admits messages that arrived together, in arrival order, in one transaction of a fixed number of statements
 * however many there are: every statement is a round trip (to the embedded database's thread, or to PostgreSQL),
 * and one transaction of seven statements per message made a 50-mention burst cost 350 of them. The outcome is the one that
 * admitting the messages one by one would have had: Slack's retries and a message's second event are duplicates,
 * follow-ups without a mention are ignored outside engaged threads, the policy refuses, a thread's first message
 * starts a run and later ones fold into the waiting run. Nothing is written unless all of it is, so a failure
 * leaves nothing for a retry to mistake for a duplicate.
 */
export function admitMessages(db: Database, policy: AccessPolicy, items: readonly IntakeItem[]): Promise<Admission[]> {
  return db.transaction(async (tx) => {
    const db = tx as unknown as Database;
    const admissions: Array<Admission | undefined> = items.map(() => undefined);
    // Whatever becomes of them below is decided in this transaction: their records of receipt go with it.
    await settleRecorded(
      db,
      items.flatMap((item) => (item.deliveryId ? [item.deliveryId] : [])),
      items.flatMap((item) => (item.questionId ? [item.questionId] : [])),
    );

    const withEventId = items.flatMap((item, index) => (item.eventId ? [{ eventId: item.eventId, index }] : []));
    const eventClaims = await claimEvents(db, withEventId.map(({ eventId }) => eventId));
    withEventId.forEach(({ index }, n) => {
      if (!eventClaims[n]) admissions[index] = { kind: 'duplicate' };
    });
    // One message may arrive as app_mention and as message (two event ids): the (channel, ts) key decides.
    const unclaimed = indexesWhere(admissions, (admission) => admission === undefined);
    const messageClaims = await claimMessages(db, unclaimed.map((index) => items[index]!.trigger));
    unclaimed.forEach((index, n) => {
      if (!messageClaims[n]) admissions[index] = { kind: 'duplicate' };
    });

    const fresh = indexesWhere(admissions, (admission) => admission === undefined);
    if (fresh.length === 0) return admissions as Admission[];
    const triggers = fresh.map((index) => items[index]!.trigger);
    const limited = policy.userRateLimitPerMinute > 0;
    const spendLimited = hasDailyLimits(policy.dailyLimits);
    // Counted under per-user (and, with daily limits, per-channel) locks held to the end of this transaction: two
    // replicas admitting one user's questions at the same instant take turns, and each counts the runs the other wrote.
    if (limited || spendLimited) {
      await lockSubjects(db, [
        ...triggers.map((t) => `user ${t.userId}`),
        ...(spendLimited ? triggers.map((t) => `channel ${t.channelId}`) : []),
      ]);
    }
    const asked = limited ? await countRecentQuestions(db, triggers.map((t) => t.userId)) : new Map<string, number>();
    const spend = spendLimited
      ? await readTodaysSpend(db, { userIds: triggers.map((t) => t.userId), channelIds: triggers.map((t) => t.channelId) })
      : NO_SPEND;
    const plans = planAdmissions(triggers, { asked, threads: await readThreadFacts(db, triggers), spend, now: new Date() }, policy);

    // Threads are written only for messages that are not ignored: chatter in threads the bot was never brought
    // into leaves no rows behind.
    const kept = plans.flatMap((plan, n) => (plan.kind === 'ignored' ? [] : [n]));
    const rows = await upsertThreads(
      db,
      kept.map((n) => ({ ...triggers[n]!, engaged: plans[n]!.engages })),
    );
    const threadIdOf = new Map(kept.map((n, k) => [threadKeyOf(triggers[n]!), rows[k]!.id]));

    const starters = plans.flatMap((plan, n) => (plan.kind === 'queued' && plan.startsRun ? [n] : []));
    const started = await insertWaitingRuns(db, starters.map((n) => runRequestFor(triggers[n]!, threadIdOf)));
    const startedRuns = new Map(starters.map((n, k) => [n, started[k]]));
    // A question over a daily limit is recorded as a refused run: the console shows what was turned away, and why.
    await insertRefusedRuns(
      db,
      plans.flatMap((plan, n) =>
        plan.kind === 'refused' && plan.refusal.reason === 'over_daily_limit' ? [{ ...runRequestFor(triggers[n]!, threadIdOf), reason: plan.refusal.message }] : [],
      ),
    );

    const overLimit = plans.flatMap((plan, n) => (plan.kind === 'refused' && plan.refusal.reason === 'rate_limited' ? [triggers[n]!.userId] : []));
    const toTell = await claimRateLimitNotices(db, overLimit);

    for (const [n, plan] of plans.entries()) {
      const index = fresh[n]!;
      const threadId = threadIdOf.get(threadKeyOf(triggers[n]!));
      if (plan.kind === 'ignored') admissions[index] = { kind: 'ignored' };
      else if (plan.kind === 'refused') {
        // The first refusal of a user this window is told (toTell gives each user once), the rest are silent.
        const tell = plan.refusal.reason !== 'rate_limited' || toTell.delete(triggers[n]!.userId);
        admissions[index] = { kind: 'refused', refusal: plan.refusal, tell };
      }
      else {
        const run = startedRuns.get(n);
        // A waiting run already there (or one appeared since the facts were read): fold in, race-safe.
        const queued = run ? { run, folded: false } : await enqueueRun(db, runRequestFor(triggers[n]!, threadIdOf));
        admissions[index] = { kind: 'queued', ...queued, threadId: threadId! };
      }
    }
    return admissions as Admission[];
  });
}

export type AdmissionPlan =
  | { kind: 'ignored'; engages: false }
  | { kind: 'refused'; refusal: AccessRefusal; engages: false }
  | { kind: 'queued'; startsRun: boolean; engages: boolean };

export interface AdmissionFacts {
  /** Runs each user started in the last minute, before these messages. */
  asked: ReadonlyMap<string, number>;
  /** Threads already known, by `threadKeyOf`. */
  threads: ReadonlyMap<string, ThreadFacts>;
  /** What users and channels spent today, for the daily limits (empty without limits). */
  spend?: TodaysSpend;
  now?: Date;
}

const NO_SPEND: TodaysSpend = { byUser: new Map(), byChannel: new Map(), lifted: new Set() };

/**
 * What becomes of each new message, decided in order as if they had come one at a time: each one sees the
 * threads engaged, the runs started and the questions counted by those before it.
 */
export function planAdmissions(triggers: readonly Trigger[], facts: AdmissionFacts, policy: AccessPolicy): AdmissionPlan[] {
  const asked = new Map(facts.asked);
  const threads = new Map([...facts.threads].map(([key, thread]) => [key, { ...thread }]));
  return triggers.map((trigger) => {
    const key = threadKeyOf(trigger);
    const thread = threads.get(key) ?? { engaged: false, hasWaitingRun: false };
    threads.set(key, thread);
    const refusal =
      refusalFor(policy, trigger, asked.get(trigger.userId) ?? 0) ?? limitRefusalFor(policy.dailyLimits, trigger, facts.spend ?? NO_SPEND, facts.now ?? new Date());
    const engages = trigger.engages && !refusal;
    thread.engaged ||= engages;
    if (trigger.needsEngagedThread && !thread.engaged) return { kind: 'ignored', engages: false };
    if (refusal) return { kind: 'refused', refusal, engages: false };
    const startsRun = !thread.hasWaitingRun;
    if (startsRun) {
      thread.hasWaitingRun = true;
      asked.set(trigger.userId, (asked.get(trigger.userId) ?? 0) + 1);
    }
    return { kind: 'queued', startsRun, engages };
  });
}

function runRequestFor(trigger: Trigger, threadIdOf: ReadonlyMap<string, number>) {
  return {
    threadId: threadIdOf.get(threadKeyOf(trigger))!,
    triggerTs: trigger.messageTs,
    triggerUserId: trigger.userId,
    teamId: trigger.teamId,
    channelId: trigger.channelId,
    question: trigger.question,
  };
}

/** Transaction-scoped locks on each user's (or channel's) counts, taken in one order so that replicas cannot deadlock. */
async function lockSubjects(db: Database, subjects: readonly string[]): Promise<void> {
  const distinct = [...new Set(subjects)].sort();
  if (distinct.length === 0) return;
  await db.execute(sql`select pg_advisory_xact_lock(hashtext('threadwise rate limit ' || u)) from unnest(${toTextArray(distinct)}::text[]) as u order by u`);
}

/**
 * Which of these users to tell they are over the limit: those not told within the window (a minute), across
 * replicas. Each user is told once, however many of their messages were refused.
 */
async function claimRateLimitNotices(db: Database, userIds: readonly string[]): Promise<Set<string>> {
  const distinct = [...new Set(userIds)].sort();
  if (distinct.length === 0) return new Set();
  const claimed = await db
    .insert(rateLimitNotices)
    .values(distinct.map((userId) => ({ userId })))
    .onConflictDoUpdate({
      target: rateLimitNotices.userId,
      set: { notifiedAt: sql`now()` },
      setWhere: sql`${rateLimitNotices.notifiedAt} < now() - interval '1 minute'`,
    })
    .returning({ userId: rateLimitNotices.userId });
  return new Set(claimed.map((row) => row.userId));
}

/** A PostgreSQL text[] literal: PGlite and postgres.js do not bind JS arrays the same way. */
function toTextArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

function indexesWhere<T>(values: readonly T[], test: (value: T) => boolean): number[] {
  return values.flatMap((value, index) => (test(value) ? [index] : []));
}
