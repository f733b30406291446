/**
 * Wakes up when a task is due, and at no other time but a cheap check: each replica keeps ONE timer, to the
 * earliest due active task or to the next look at the tasks' version counter (a primary-key lookup, every
 * `checkEveryMs`, default 30 s: two queries a minute when nothing is due, however many tasks there are). A change
 * through this process (`refresh()`) or through any other (the version moves) makes it read the earliest due time
 * again. When something is due it claims each occurrence exactly once (store/task-store.ts: the (task, due time)
 * key, in the transaction that advances the task and writes its run through `enqueueOccurrence`). A missed
 * occurrence — the process was down — is claimed once, marked late, and the task moves on to its next due time
 * after now: never a burst. Every time read and every timer goes through the Clock.
 */
import { ThreadwiseError } from '../core/errors';
import { mapConcurrently } from '../core/map-concurrently';
import type { Activity } from '../core/activity';
import type { Clock } from '../core/clock';
import type { Logger } from '../logging/logger';
import type { Database } from '../store/database';
import {
  claimOccurrence,
  dueTaskIds,
  readTaskWakeUp,
  recordOccurrenceResult,
  tasksVersionOf,
  type OccurrenceRow,
  type TaskRow,
} from '../store/task-store';
import { DEFAULT_LATE_AFTER_MS } from './occurrence-prompt';
import { nextDueAfter, type TaskSchedule } from './schedule';
import { scheduleOf } from './task-schedule-of';

/** Thrown by `enqueueOccurrence` when the occurrence cannot start yet (its thread has a run waiting): retried quietly. */
export class OccurrenceDeferred extends ThreadwiseError<'occurrence_deferred'> {
  override readonly name = 'OccurrenceDeferred';
  constructor(message = 'the thread has a run waiting; the occurrence starts after it', options?: { cause?: unknown; context?: Record<string, unknown> }) {
    super('occurrence_deferred', message, options);
  }
}

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
   * Writes the run that answers `occurrence`, with `tx` (inside the claim's transaction: the run row and the claim
   * commit together or not at all). Returns the run's id. Throwing leaves the occurrence due; it is tried again
   * after `retryMs` (e.g. OccurrenceDeferred while the thread already has a waiting run).
   */
  enqueueOccurrence(occurrence: ScheduledOccurrence, tx: Database): Promise<number | undefined>;
  /** After the claim committed: e.g. wake the run worker. */
  onClaimed?(occurrence: ScheduledOccurrence): void;
  /** A task paused itself after `pauseAfterFailures` failed runs in a row: say so in its thread. */
  onPaused?(task: TaskRow): Promise<void> | void;
  /** TASK_PAUSE_AFTER_FAILURES (default 3). */
  pauseAfterFailures?: number;
  /** How often an idle scheduler looks at the version counter (default 30 s). */
  checkEveryMs?: number;
  /** After a claim that failed or found its task held by another replica (default 5 s). */
  retryMs?: number;
  /** Occurrences claimed per look at the due tasks (default 100). */
  batchSize?: number;
  /** Claims in flight at once, each its own transaction (default 4; the embedded database runs them one by one). */
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
   * How an occurrence's run ended (call once the run is done or failed; `runId` picks the occurrence). The Nth
   * failure in a row pauses the task and calls `onPaused`.
   */
  recordOccurrenceResult(taskId: number, ok: boolean, details?: { runId?: number; error?: string }): Promise<{ paused: boolean }>;
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
      const ids = await dueTaskIds(db, new Date(clock.now()), batchSize);
      let progressed = false;
      // A few claims at once (a pool's connections work in parallel), starting at a different place in the batch on
      // each replica: replicas reading the same batch do not queue up behind each other's locks (SKIP LOCKED).
      const offset = ids.length > 0 ? Math.floor(Math.random() * ids.length) : 0;
      const order = [...ids.slice(offset), ...ids.slice(0, offset)];
      await mapConcurrently(order, claimConcurrency, async (taskId) => {
        if (stopping) return;
        const outcome = await claim(taskId);
        if (outcome === 'failed') retry = true;
        else if (outcome === 'claimed' || outcome === 'duplicate') progressed = true;
      });
      wake = await readTaskWakeUp(db);
      // Nothing moved: the rest is held by another replica right now, or failed; try again after retryMs.
      if (!progressed) {
        retry = true;
        break;
      }
    }
    known = wake;
    armFromKnown(retry);
  };

  const claim = async (taskId: number): Promise<'claimed' | 'duplicate' | 'skipped' | 'failed'> => {
    const now = new Date(clock.now());
    let scheduled: ScheduledOccurrence | undefined;
    try {
      const result = await claimOccurrence(db, {
        taskId,
        now,
        owner: options.owner,
        nextDue: (task) => nextDueAfter(scheduleOf(task), now.getTime()),
        enqueue: async (occurrence, task, tx) => {
          scheduled = occurrenceFor(occurrence, task, lateAfterMs);
          return options.enqueueOccurrence(scheduled, tx);
        },
      });
      if (result.kind === 'claimed' && scheduled) {
        logger.info('scheduled task occurrence claimed', {
          taskId,
          dueAt: scheduled.dueAt.toISOString(),
          late: scheduled.late,
          runId: result.occurrence.runId ?? undefined,
        });
        options.onClaimed?.(scheduled);
      }
      if (result.kind === 'duplicate') logger.info('scheduled task occurrence already claimed; task advanced', { taskId });
      return result.kind;
    } catch (error) {
      const log = error instanceof OccurrenceDeferred ? logger.debug : logger.warn;
      log('scheduled task occurrence could not be claimed; will retry', { taskId, error, retryInMs: retryMs });
      return 'failed';
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
    async recordOccurrenceResult(taskId, ok, details = {}) {
      const result = await recordOccurrenceResult(db, {
        taskId,
        runId: details.runId,
        ok,
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
