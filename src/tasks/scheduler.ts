/**
 * Wakes up when a task is due, and at no other time but a cheap check: each replica keeps ONE timer, to the
 * earliest due active task or to the next look at the tasks' version counter (a primary-key lookup, every
 * `checkEveryMs`, default 30 s: two queries a minute when nothing is due, however many tasks there are). A change
 * through this process (`refresh()`) or through any other (the version moves) makes it read the earliest due time
 * again. When something is due it claims the due occurrences in batches, each exactly once (store/task-store.ts:
 * the (task, due time) key, in the transaction that advances the tasks and writes their runs through
 * `enqueueOccurrences`); each batch's runs are handed on (`onClaimed`) as soon as it commits, so they are answered
 * while later batches are still being claimed. A missed occurrence — the process was down — is claimed once, marked
 * late, and the task moves on to its next due time after now: never a burst. Every time read and every timer goes
 * through the Clock.
 */
import type { Activity } from '../core/activity';
import type { Clock } from '../core/clock';
import type { Logger } from '../logging/logger';
import type { Database } from '../store/database';
import {
  claimDueOccurrences,
  readTaskWakeUp,
  recordOccurrenceResult,
  tasksVersionOf,
  type OccurrenceOutcome,
  type OccurrenceRow,
  type TaskRow,
} from '../store/task-store';
import { DEFAULT_LATE_AFTER_MS } from './occurrence-prompt';
import { nextDueAfter, type TaskSchedule } from './schedule';
import { scheduleOf } from './task-schedule-of';

/** An occurrence just claimed: what the run that answers it needs. */
export interface ScheduledOccurrence {
  occurrenceId: number;
  task: TaskRow;
  schedule: TaskSchedule;
  dueAt: Date;
  claimedAt: Date;
  /** Claimed more than `lateAfterMs` after its due time (the process was down or busy). */
  late: boolean;
  lateByMs: number;
}

export interface TaskSchedulerOptions {
  db: Database;
  clock: Clock;
  /** This process (recorded as the occurrence's claimer). */
  owner: string;
  logger: Pick<Logger, 'debug' | 'info' | 'warn'>;
  /**
   * Writes the runs that answer a batch of `occurrences`, with `tx` (inside the claim's transaction: the run rows and
   * the claim commit together or not at all). Returns each one's run id, in order; undefined for one that cannot
   * start yet (its thread has a run waiting): that task stays due and is tried again after `retryMs`. Throwing
   * leaves the whole batch due, tried again likewise.
   */
  enqueueOccurrences(occurrences: readonly ScheduledOccurrence[], tx: Database): Promise<ReadonlyArray<number | undefined>>;
  /** After the claim committed, for each occurrence of the batch: e.g. wake the run worker. */
  onClaimed?(occurrence: ScheduledOccurrence): void;
  /** A task paused itself after `pauseAfterFailures` failed runs in a row: say so in its thread. */
  onPaused?(task: TaskRow): Promise<void> | void;
  /** TASK_PAUSE_AFTER_FAILURES (default 3). */
  pauseAfterFailures?: number;
  /** How often an idle scheduler looks at the version counter (default 30 s). */
  checkEveryMs?: number;
  /** After a claim that failed, or left due tasks it could not take (held by another replica, or waiting) (default 5 s). */
  retryMs?: number;
  /** Occurrences claimed per transaction (default 100). */
  batchSize?: number;
  /** Batches in flight at once, each its own transaction (default 4; the embedded database runs them one by one). */
  claimConcurrency?: number;
  /** An occurrence claimed later than this after its due time is late (default 2 min). */
  lateAfterMs?: number;
  /** Where each look and claim registers while in flight (the app's idle()). */
  activity?: Pick<Activity, 'track'>;
}

export interface TaskScheduler {
  start(): void;
  /** Stops the timer and waits for a claim under way. */
  stop(): Promise<void>;
  /** Tasks changed through this process: read the earliest due time again now. */
  refresh(): void;
  /**
   * How an occurrence's run ended (call once the run is done, failed, or was not run; `runId` picks the occurrence).
   * The Nth failure in a row pauses the task and calls `onPaused`.
   */
  recordOccurrenceResult(taskId: number, outcome: OccurrenceOutcome, details?: { runId?: number; error?: string }): Promise<{ paused: boolean }>;
  /** Resolves when no look or claim is under way (tests, shutdown). */
  idle(): Promise<void>;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

export function createTaskScheduler(options: TaskSchedulerOptions): TaskScheduler {
  const { db, clock, logger } = options;
  const checkEveryMs = options.checkEveryMs ?? 30_000;
  const retryMs = options.retryMs ?? 5_000;
  const batchSize = options.batchSize ?? 100;
  const lateAfterMs = options.lateAfterMs ?? DEFAULT_LATE_AFTER_MS;
  const pauseAfterFailures = options.pauseAfterFailures ?? 3;
  const claimConcurrency = Math.max(1, options.claimConcurrency ?? 4);

  let started = false;
  let stopping = false;
  let cancelTimer: (() => void) | undefined;
  /** What this replica last read: the version and the earliest due time. */
  let known: { version: number; nextDueAt: Date | undefined } | undefined;
  let running: Promise<void> | undefined;
  /** A full look was asked for while one ran. */
  let again = false;
  let failures = 0;

  const arm = (delayMs: number, kind: 'due' | 'check') => {
    cancelTimer?.();
    if (stopping) return;
    cancelTimer = clock.setTimeout(() => {
      cancelTimer = undefined;
      void look(kind === 'due' ? 'full' : 'check');
    }, Math.min(Math.max(0, delayMs), MAX_TIMER_MS));
  };

  /** One timer: to the due time if it comes before the next version check, else to the check. */
  const armFromKnown = (retry: boolean) => {
    const now = clock.now();
    const due = known?.nextDueAt?.getTime();
    if (retry || (due !== undefined && due <= now)) return arm(retryMs, 'due');
    if (due !== undefined && due - now <= checkEveryMs) return arm(due - now, 'due');
    arm(checkEveryMs, 'check');
  };

  const look = (kind: 'full' | 'check'): Promise<void> => {
    if (running) {
      if (kind === 'full') again = true;
      return running;
    }
    const current = (async () => {
      let next: 'full' | 'check' | undefined = kind;
      while (next && !stopping) {
        const this_ = next;
        again = false;
        next = undefined;
        try {
          await (this_ === 'check' ? check() : fullLook());
          if (failures > 0) logger.info('scheduled tasks: the database answers again', { failedLooks: failures });
          failures = 0;
        } catch (error) {
          failures += 1;
          (failures === 1 ? logger.warn : logger.debug)('scheduled tasks: could not look for due tasks; will retry', { error, retryInMs: retryMs });
          arm(retryMs, 'due');
        }
        if (again) next = 'full';
      }
    })();
    running = current.finally(() => {
      running = undefined;
    });
    if (options.activity) void options.activity.track(running);
    return running;
  };

  /** Idle: is the version still the one we know? If so, sleep on; else look again. */
  const check = async () => {
    const version = await tasksVersionOf(db);
    if (known && version === known.version) {
      const due = known.nextDueAt?.getTime();
      if (due !== undefined && due <= clock.now()) return fullLook();
      return armFromKnown(false);
    }
    return fullLook();
  };

  const fullLook = async () => {
    let wake = await readTaskWakeUp(db);
    let retry = false;
    while (!stopping && wake.nextDueAt && wake.nextDueAt.getTime() <= clock.now()) {
      // A few batches at once (a pool's connections work in parallel); SKIP LOCKED gives each its own tasks, and
      // another replica's batches theirs.
      const outcomes = await Promise.all(Array.from({ length: claimConcurrency }, () => claimBatch()));
      if (outcomes.some((outcome) => outcome.failed || outcome.deferred)) retry = true;
      wake = await readTaskWakeUp(db);
      // Nothing moved: the rest is held by another replica right now, waits for its thread, or failed; try again
      // after retryMs.
      if (!outcomes.some((outcome) => outcome.progressed)) {
        retry = true;
        break;
      }
    }
    known = wake;
    armFromKnown(retry);
  };

  const claimBatch = async (): Promise<{ progressed: boolean; deferred: boolean; failed: boolean }> => {
    if (stopping) return { progressed: false, deferred: false, failed: false };
    const now = new Date(clock.now());
    const scheduled = new Map<number, ScheduledOccurrence>();
    try {
      const result = await claimDueOccurrences(db, {
        now,
        owner: options.owner,
        limit: batchSize,
        nextDue: (task) => nextDueAfter(scheduleOf(task), now.getTime()),
        enqueue: (claimed, tx) => {
          const batch = claimed.map(({ occurrence, task }) => occurrenceFor(occurrence, task, lateAfterMs));
          for (const occurrence of batch) scheduled.set(occurrence.occurrenceId, occurrence);
          return options.enqueueOccurrences(batch, tx);
        },
      });
      for (const { occurrence, task } of result.claimed) {
        const claimed = scheduled.get(occurrence.id) ?? occurrenceFor(occurrence, task, lateAfterMs);
        logger.info('scheduled task occurrence claimed', {
          taskId: task.id,
          dueAt: claimed.dueAt.toISOString(),
          late: claimed.late,
          runId: occurrence.runId ?? undefined,
        });
        options.onClaimed?.(claimed);
      }
      for (const task of result.duplicates) logger.info('scheduled task occurrence already claimed; task advanced', { taskId: task.id });
      if (result.deferred.length > 0) {
        logger.debug('scheduled task occurrences wait for a run already waiting in their threads', { taskIds: result.deferred, retryInMs: retryMs });
      }
      return { progressed: result.claimed.length + result.duplicates.length > 0, deferred: result.deferred.length > 0, failed: false };
    } catch (error) {
      logger.warn('scheduled task occurrences could not be claimed; will retry', { error, retryInMs: retryMs });
      return { progressed: false, deferred: false, failed: true };
    }
  };

  return {
    start() {
      if (started) return;
      started = true;
      void look('full');
    },
    async stop() {
      stopping = true;
      cancelTimer?.();
      cancelTimer = undefined;
      await running;
    },
    refresh() {
      if (!started || stopping) return;
      void look('full');
    },
    async recordOccurrenceResult(taskId, outcome, details = {}) {
      const result = await recordOccurrenceResult(db, {
        taskId,
        runId: details.runId,
        outcome,
        error: details.error,
        now: new Date(clock.now()),
        pauseAfterFailures,
      });
      if (result.paused && result.task) {
        logger.info('scheduled task paused itself after failing repeatedly', { taskId, failures: result.task.consecutiveFailures });
        try {
          await options.onPaused?.(result.task);
        } catch (error) {
          logger.warn('could not say in its thread that a task paused itself', { taskId, error });
        }
      }
      return { paused: result.paused };
    },
    async idle() {
      while (running) await running;
    },
  };
}

function occurrenceFor(occurrence: OccurrenceRow, task: TaskRow, lateAfterMs: number): ScheduledOccurrence {
  return {
    occurrenceId: occurrence.id,
    task,
    schedule: scheduleOf(task),
    dueAt: occurrence.dueAt,
    claimedAt: occurrence.claimedAt,
    late: occurrence.lateMs > lateAfterMs,
    lateByMs: occurrence.lateMs,
  };
}
