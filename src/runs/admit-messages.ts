import type { Database } from '../store/database';
import { claimEvents, claimMessages } from '../store/event-store';
import { readThreadFacts, threadKeyOf, upsertThreads, type ThreadFacts } from '../store/thread-store';
import { enqueueRun, insertWaitingRuns, type RunRow } from '../store/run-store';
import { settleRecorded } from '../store/delivery-store';
import type { Trigger } from './trigger';
import { countRecentQuestions, refusalFor, type AccessPolicy, type AccessRefusal } from './access-policy';

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
  | { kind: 'refused'; refusal: AccessRefusal }
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
    const asked = policy.userRateLimitPerMinute > 0 ? await countRecentQuestions(db, triggers.map((t) => t.userId)) : new Map<string, number>();
    const plans = planAdmissions(triggers, { asked, threads: await readThreadFacts(db, triggers) }, policy);

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

    for (const [n, plan] of plans.entries()) {
      const index = fresh[n]!;
      const threadId = threadIdOf.get(threadKeyOf(triggers[n]!));
      if (plan.kind === 'ignored') admissions[index] = { kind: 'ignored' };
      else if (plan.kind === 'refused') admissions[index] = { kind: 'refused', refusal: plan.refusal };
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
}

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
    const refusal = refusalFor(policy, trigger, asked.get(trigger.userId) ?? 0);
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
  };
}

function indexesWhere<T>(values: readonly T[], test: (value: T) => boolean): number[] {
  return values.flatMap((value, index) => (test(value) ? [index] : []));
}
