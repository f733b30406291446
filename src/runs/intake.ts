import type { Database } from '../store/database';
import { threadKeyOf } from '../store/thread-store';
import type { Logger } from '../logging/logger';
import { systemClock, type Clock } from '../core/clock';
import { untracked, type Activity } from '../core/activity';
import type { Trigger } from './trigger';
import type { AccessPolicy, AccessRefusal } from './access-policy';
import { admitMessages, type Admission, type IntakeItem } from './admit-messages';
import { causesOf, codeOf } from '../core/errors';

export interface IntakeDependencies {
  db: Database;
  logger: Logger;
  policy: AccessPolicy;
  /** A run was queued: wake the worker. */
  onQueued: () => void;
  /** Someone was turned away (allowlist, rate limit): tell them, politely. */
  onRefused: (trigger: Trigger, refusal: AccessRefusal) => Promise<void>;
  /** The database refused these recorded messages outright: their records of receipt can go (a replay would fail alike). */
  onRefusedByDatabase?: (recorded: { deliveryIds: string[]; questionIds: string[] }) => void;
  /** Files arrived in an answered thread: extract them ahead of the question. */
  onFiles?: (trigger: Trigger, threadId: number) => void;
  /** Backoff while the database is unreachable; the last delay repeats. */
  retryDelaysMs?: number[];
  /** Messages held in memory at most; beyond that new ones are dropped (and logged), so an outage cannot exhaust memory. */
  maxHeld?: number;
  /** How long one message is retried before it is given up (and logged). Slack stops retrying after minutes. */
  maxHoldMs?: number;
  /** Messages written in one transaction at most. */
  maxBatch?: number;
  /** Time and timers (retry backoff, how long a message is held); default the system clock. */
  clock?: Clock;
  /** Where the writer and what it does for each message (tell, queue) register while in flight. */
  activity?: Activity;
}

export interface Intake {
  /** Never blocks and never throws: Slack gets its acknowledgement at once, whatever the database is doing. */
  submit(item: IntakeItem): void;
  /**
   * Resolves when everything submitted so far is written (or dropped as a duplicate), or when `timeoutMs` is over;
   * then stops retrying and logs, one line each, the messages that could not be written. Returns how many.
   */
  drain(timeoutMs?: number): Promise<number>;
  /** Messages accepted but not yet written. */
  pending(): number;
  /**
   * Whether a message of this recorded delivery was submitted (its record is then settled with its run); asked once
   * per delivery, after the app has processed it, and forgotten. A delivery the intake never saw is the caller's.
   */
  tookDelivery(deliveryId: string): boolean;
}

interface Held {
  item: IntakeItem;
  receivedAt: number;
  /** Failed writes so far. */
  attempts: number;
  /** Not written again before this time. */
  retryAt: number;
  /** Its batch failed: written in a transaction of its own from now on, so that one bad message cannot hold others. */
  alone: boolean;
}

/**
 * Between Slack's acknowledgement and the durable run row. Messages wait in arrival order and are written by one
 * writer, in batches: whatever arrived while the previous transaction ran goes into the next (group commit), so a
 * burst of mentions costs a few transactions, and the writer waits one event-loop turn before its first batch so
 * that the rest of the burst is acknowledged first and joins it. A batch that fails is retried message by message, so a message the
 * database refuses (it is logged and given up) cannot hold back the others; while the database is unreachable,
 * messages are retried with backoff, held in memory (bounded in number and age). A thread's messages are written
 * in arrival order: the first question asks, later ones fold into the run behind it.
 */
export function createIntake(deps: IntakeDependencies): Intake {
  const delays = deps.retryDelaysMs ?? [100, 250, 500, 1000, 2000, 5000];
  const maxHeld = deps.maxHeld ?? 10_000;
  const maxHoldMs = deps.maxHoldMs ?? 15 * 60_000;
  const maxBatch = deps.maxBatch ?? 100;
  const clock = deps.clock ?? systemClock;
  const activity = deps.activity ?? untracked;
  const queue: Held[] = [];
  const idle: Array<() => void> = [];
  let writer: Promise<void> | undefined;
  let closed = false;
  let wakeWriter: (() => void) | undefined;
  /** Deliveries submitted whose processing Bolt has not finished yet; tookDelivery() removes them. */
  const takenDeliveries = new Set<string>();

  const whereOf = ({ item: { trigger, eventId } }: Held) => ({
    channel: trigger.channelId,
    threadTs: trigger.threadTs,
    ts: trigger.messageTs,
    eventId,
  });

  /** Side effects only after the transaction committed: a rolled-back message must not have been refused or queued. */
  const act = async (trigger: Trigger, admission: Admission) => {
    const where = { channel: trigger.channelId, threadTs: trigger.threadTs, ts: trigger.messageTs };
    if (admission.kind === 'refused') {
      deps.logger.info('message refused', { ...where, user: trigger.userId, reason: admission.refusal.reason, told: admission.tell });
      if (!admission.tell) return;
      await deps.onRefused(trigger, admission.refusal).catch((error) =>
        deps.logger.warn('could not tell a user they were refused', { ...where, error }),
      );
    } else if (admission.kind === 'queued') {
      if (trigger.hasFiles) deps.onFiles?.(trigger, admission.threadId);
      deps.logger.info(admission.folded ? 'message folded into the waiting run' : 'run queued', { runId: admission.run.id, ...where });
      deps.onQueued();
    } else {
      // Debug only: every Slack retry lands here, and so does every thread message the bot is not part of.
      deps.logger.debug(admission.kind === 'duplicate' ? 'duplicate delivery; already recorded' : 'message ignored: not addressed to the bot', where);
    }
  };

  /**
   * The next messages to write: the oldest ready ones, skipping any whose thread has an earlier message still
   * waiting, so that each thread's order holds. A message whose batch failed goes alone.
   */
  const nextBatch = (now: number): Held[] => {
    const batch: Held[] = [];
    const waitingThreads = new Set<string>();
    for (const held of queue) {
      const thread = threadKeyOf(held.item.trigger);
      if (waitingThreads.has(thread)) continue;
      if (held.retryAt > now || (held.alone && batch.length > 0)) {
        waitingThreads.add(thread);
        continue;
      }
      batch.push(held);
      if (held.alone || batch.length >= maxBatch) break;
    }
    return batch;
  };

  const remove = (written: Held[]) => {
    const gone = new Set(written);
    const kept = queue.filter((held) => !gone.has(held));
    queue.splice(0, queue.length, ...kept);
  };

  const failed = (batch: Held[], error: unknown) => {
    if (batch.length > 1) {
      // Which message broke it is unknown (or the database is away): each goes alone from now on.
      for (const held of batch) held.alone = true;
      deps.logger.debug('could not record a batch of incoming messages; writing them one by one', { messages: batch.length, error });
      return;
    }
    const held = batch[0]!;
    const where = whereOf(held);
    if (isRefusedByDatabase(error)) {
      remove(batch);
      const { deliveryId, questionId } = held.item;
      if (deliveryId || questionId) deps.onRefusedByDatabase?.({ deliveryIds: deliveryId ? [deliveryId] : [], questionIds: questionId ? [questionId] : [] });
      deps.logger.error('the database refused an incoming message; it will not be answered', { ...where, error });
      return;
    }
    if (clock.now() - held.receivedAt >= maxHoldMs) {
      remove(batch);
      // A recorded one is not lost: its record of receipt stays, and is replayed once this process is gone.
      if (isRecorded(held)) deps.logger.warn('stopped retrying an incoming message here; its recorded delivery is replayed later', { ...where, attempts: held.attempts + 1, error });
      else deps.logger.error('gave up recording an incoming message; it will not be answered', { ...where, attempts: held.attempts + 1, error });
      return;
    }
    const delay = delays[Math.min(held.attempts, delays.length - 1)]!;
    // One warning per message, not one per retry: an outage must not turn into a log flood.
    (held.attempts === 0 ? deps.logger.warn : deps.logger.debug)('could not record an incoming message; retrying', {
      ...where,
      attempt: held.attempts + 1,
      retryInMs: delay,
      held: queue.length,
      error,
    });
    held.attempts += 1;
    held.retryAt = clock.now() + delay;
  };

  const sleepUntil = (time: number) =>
    new Promise<void>((resolve) => {
      const cancel = clock.setTimeout(() => wakeWriter?.(), Math.max(0, time - clock.now()));
      wakeWriter = () => {
        cancel();
        wakeWriter = undefined;
        resolve();
      };
    });

  const writeQueue = async () => {
    try {
      // A turn for the event loop first: the rest of a burst is acknowledged, then joins this batch.
      await nextTurn();
      while (queue.length > 0 && !closed) {
        const batch = nextBatch(clock.now());
        if (batch.length === 0) {
          await sleepUntil(Math.min(...queue.map((held) => held.retryAt)));
          continue;
        }
        let admissions: Admission[];
        try {
          admissions = await admitMessages(deps.db, deps.policy, batch.map((held) => held.item));
        } catch (error) {
          failed(batch, error);
          continue;
        }
        remove(batch);
        batch.forEach((held, i) =>
          activity.track(act(held.item.trigger, admissions[i]!).catch((error) => deps.logger.error('could not act on an incoming message', { ...whereOf(held), error }))),
        );
      }
      if (closed) {
        for (const held of queue.splice(0)) {
          if (isRecorded(held)) deps.logger.warn('shutting down before an incoming message became a run; its recorded delivery is replayed by the next start', whereOf(held));
          else deps.logger.error('shutting down before an incoming message could be recorded; it will not be answered', whereOf(held));
        }
      }
    } finally {
      // Synchronously, before the promise settles: a message submitted from now on must start a new writer.
      writer = undefined;
      for (const resolve of idle.splice(0)) resolve();
    }
  };

  return {
    submit(item) {
      const { trigger } = item;
      if (item.deliveryId) takenDeliveries.add(item.deliveryId);
      if (closed) {
        deps.logger.error('message arrived while shutting down; not recorded', { channel: trigger.channelId, ts: trigger.messageTs });
        return;
      }
      if (queue.length >= maxHeld) {
        deps.logger.error('too many messages waiting for the database; dropping this one', {
          channel: trigger.channelId,
          threadTs: trigger.threadTs,
          ts: trigger.messageTs,
          held: queue.length,
        });
        return;
      }
      queue.push({ item, receivedAt: clock.now(), attempts: 0, retryAt: 0, alone: false });
      // A writer asleep until a retry is due wakes for it: it may be in a thread with nothing waiting.
      wakeWriter?.();
      writer ??= activity.track(writeQueue());
    },
    async drain(timeoutMs = Number.POSITIVE_INFINITY) {
      if (queue.length > 0) {
        const empty = new Promise<void>((resolve) => idle.push(resolve));
        let cancel = () => {};
        const timedOut = Number.isFinite(timeoutMs) ? new Promise<void>((resolve) => (cancel = clock.setTimeout(resolve, timeoutMs, { background: true }))) : new Promise<void>(() => {});
        await Promise.race([empty, timedOut]);
        cancel();
      }
      if (queue.length === 0) return 0;
      // Out of time: stop retrying; the writer logs each message it could not record.
      const lost = queue.length;
      closed = true;
      wakeWriter?.();
      let cancel = () => {};
      await Promise.race([writer, new Promise<void>((resolve) => (cancel = clock.setTimeout(resolve, 1_000, { background: true })))]);
      cancel();
      return lost;
    },
    pending: () => queue.length,
    tookDelivery(deliveryId) {
      return takenDeliveries.delete(deliveryId);
    },
  };
}

/** Recorded before it was acknowledged (slack_deliveries, pending_questions): replayed if this process lets it go. */
const isRecorded = ({ item }: Held) => item.deliveryId !== undefined || item.questionId !== undefined;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * PostgreSQL said no to the data itself (SQLSTATE class 22, data exception: a NUL byte in a string, say; or 23,
 * a constraint): retrying the same message cannot succeed. Connection errors carry other codes, or none.
 */
function isRefusedByDatabase(error: unknown): boolean {
  return causesOf(error).some((cause) => /^2[23][0-9A-Z]{3}$/.test(codeOf(cause) ?? ''));
}
