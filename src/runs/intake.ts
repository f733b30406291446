import type { Database } from '../store/db';
import { claimEvent, claimMessage } from '../store/event-store';
import { upsertThread } from '../store/thread-store';
import { enqueueRun, type RunRow } from '../store/run-store';
import type { Logger } from '../logging/logger';
import type { Trigger } from '../slack/decide-trigger';
import { checkAccess, type AccessPolicy, type AccessRefusal } from './access-policy';

export interface IntakeItem {
  /** Slack's event id; absent for slash commands (their question message is new, so nothing to dedupe). */
  eventId?: string;
  trigger: Trigger;
}

export interface IntakeDependencies {
  db: Database;
  logger: Logger;
  policy: AccessPolicy;
  /** A run was queued: wake the worker. */
  onQueued: () => void;
  /** Someone was turned away (allowlist, rate limit): tell them, politely. */
  onRefused: (trigger: Trigger, refusal: AccessRefusal) => Promise<void>;
  /** Files arrived in an answered thread: extract them ahead of the question. */
  onFiles?: (trigger: Trigger, threadId: number) => void;
  /** Backoff while the database is unreachable; the last delay repeats. */
  retryDelaysMs?: number[];
  /** Messages held in memory at most; beyond that new ones are dropped (and logged), so an outage cannot exhaust memory. */
  maxHeld?: number;
  /** How long one message is retried before it is given up (and logged). Slack stops retrying after minutes. */
  maxHoldMs?: number;
  /** Messages written to the database at once. */
  concurrency?: number;
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
}

type Admission =
  | { kind: 'duplicate' }
  | { kind: 'ignored' }
  | { kind: 'refused'; refusal: AccessRefusal }
  | { kind: 'queued'; run: RunRow; folded: boolean; threadId: number };

interface Held {
  item: IntakeItem;
  receivedAt: number;
}

/**
 * Between Slack's acknowledgement and the durable run row. Each message is written in one transaction (event id,
 * message key, thread, run), so a failure halfway leaves nothing behind and the retry starts clean — a retry can
 * never mistake its own half-written event for a duplicate. While the database is unreachable, messages wait in
 * memory (bounded in number and age) and are retried with backoff; messages of one thread are written in arrival
 * order, so the first question of a thread asks and the later ones fold into the next run behind it.
 */
export function createIntake(deps: IntakeDependencies): Intake {
  const delays = deps.retryDelaysMs ?? [100, 250, 500, 1000, 2000, 5000];
  const maxHeld = deps.maxHeld ?? 10_000;
  const maxHoldMs = deps.maxHoldMs ?? 15 * 60_000;
  // Each write holds a pooled connection for its transaction: leave the rest of the pool to the worker.
  const slots = createSlots(deps.concurrency ?? 4);
  /** The tail of each thread's chain of messages, by channel and thread ts. */
  const tails = new Map<string, Promise<void>>();
  const held = new Set<Held>();
  const idle: Array<() => void> = [];
  let closed = false;
  const wakeSleepers = new Set<() => void>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakeSleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakeSleepers.add(wake);
    });

  const admit = ({ eventId, trigger }: IntakeItem): Promise<Admission> =>
    deps.db.transaction(async (tx) => {
      const db = tx as unknown as Database;
      // Between statements, a turn for the event loop: on the embedded database each statement blocks it, and the
      // acknowledgements of a burst of events must not wait for all of their writes.
      if (eventId && !(await claimEvent(db, eventId))) return { kind: 'duplicate' };
      await nextTurn();
      // One message may arrive as app_mention and as message (two event ids): the (channel, ts) key decides.
      if (!(await claimMessage(db, trigger.channelId, trigger.messageTs))) return { kind: 'duplicate' };
      await nextTurn();
      const refusal = await checkAccess(db, deps.policy, trigger);
      await nextTurn();
      const thread = await upsertThread(db, {
        teamId: trigger.teamId,
        channelId: trigger.channelId,
        threadTs: trigger.threadTs,
        engaged: trigger.engages && !refusal,
      });
      if (trigger.needsEngagedThread && !thread.engaged) return { kind: 'ignored' };
      if (refusal) return { kind: 'refused', refusal };
      await nextTurn();
      const { run, folded } = await enqueueRun(db, {
        threadId: thread.id,
        triggerTs: trigger.messageTs,
        triggerUserId: trigger.userId,
        teamId: trigger.teamId,
      });
      return { kind: 'queued', run, folded, threadId: thread.id };
    });

  /** Side effects only after the transaction committed: a rolled-back message must not have been refused or queued. */
  const act = async (trigger: Trigger, admission: Admission) => {
    const where = { channel: trigger.channelId, threadTs: trigger.threadTs, ts: trigger.messageTs };
    if (admission.kind === 'refused') {
      deps.logger.info('message refused', { ...where, user: trigger.userId, reason: admission.refusal.reason });
      await deps.onRefused(trigger, admission.refusal).catch((error) =>
        deps.logger.warn('could not tell a user they were refused', { ...where, error }),
      );
    } else if (admission.kind === 'queued') {
      if (trigger.hasFiles) deps.onFiles?.(trigger, admission.threadId);
      deps.logger.info(admission.folded ? 'message folded into the waiting run' : 'run queued', { runId: admission.run.id, ...where });
      deps.onQueued();
    }
  };

  const write = async (entry: Held) => {
    const { trigger } = entry.item;
    const where = { channel: trigger.channelId, threadTs: trigger.threadTs, ts: trigger.messageTs, eventId: entry.item.eventId };
    for (let attempt = 0; !closed; attempt++) {
      try {
        const admission = await slots.run(() => admit(entry.item));
        await act(trigger, admission);
        return;
      } catch (error) {
        if (Date.now() - entry.receivedAt >= maxHoldMs) {
          deps.logger.error('gave up recording an incoming message; it will not be answered', { ...where, attempts: attempt + 1, error });
          return;
        }
        const delay = delays[Math.min(attempt, delays.length - 1)]!;
        // One warning per message, not one per retry: an outage must not turn into a log flood.
        (attempt === 0 ? deps.logger.warn : deps.logger.debug)('could not record an incoming message; retrying', {
          ...where,
          attempt: attempt + 1,
          retryInMs: delay,
          held: held.size,
          error,
        });
        await sleep(delay);
      }
    }
    deps.logger.error('shutting down before an incoming message could be recorded; it will not be answered', where);
  };

  const settle = (entry: Held) => {
    held.delete(entry);
    if (held.size === 0) for (const resolve of idle.splice(0)) resolve();
  };

  return {
    submit(item) {
      const { trigger } = item;
      if (closed) {
        deps.logger.error('message arrived while shutting down; not recorded', { channel: trigger.channelId, ts: trigger.messageTs });
        return;
      }
      if (held.size >= maxHeld) {
        deps.logger.error('too many messages waiting for the database; dropping this one', {
          channel: trigger.channelId,
          threadTs: trigger.threadTs,
          ts: trigger.messageTs,
          held: held.size,
        });
        return;
      }
      const entry: Held = { item, receivedAt: Date.now() };
      held.add(entry);
      const key = `${trigger.channelId}:${trigger.threadTs}`;
      const tail = (tails.get(key) ?? Promise.resolve())
        .then(() => write(entry))
        .catch((error) => deps.logger.error('intake failed unexpectedly', { channel: trigger.channelId, ts: trigger.messageTs, error }))
        .finally(() => {
          settle(entry);
          if (tails.get(key) === tail) tails.delete(key);
        });
      tails.set(key, tail);
    },
    async drain(timeoutMs = Number.POSITIVE_INFINITY) {
      if (held.size > 0) {
        const empty = new Promise<void>((resolve) => idle.push(resolve));
        const timedOut = Number.isFinite(timeoutMs) ? new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()) : new Promise<void>(() => {});
        await Promise.race([empty, timedOut]);
      }
      if (held.size === 0) return 0;
      // Out of time: stop the retries; each waiting message logs that it was lost.
      const lost = held.size;
      closed = true;
      for (const wake of [...wakeSleepers]) wake();
      await Promise.race([Promise.all([...tails.values()]), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      return lost;
    },
    pending: () => held.size,
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** At most `limit` tasks at once; the rest wait their turn in order. */
function createSlots(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active < limit) active += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve)); // a finishing task hands its slot over
      try {
        return await task();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active -= 1;
      }
    },
  };
}
