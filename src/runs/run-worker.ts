import type { Database } from '../store/database';
import { claimNextRuns, finishRun, releaseLease, renewLease, type RunOutcome, type RunRow } from '../store/run-store';
import type { Logger } from '../logging/logger';
import { RunInterrupted } from './run-interrupted';
import { messageOf } from '../core/errors';
import { every, sleep, systemClock, type Clock } from '../core/clock';
import { untracked, type Activity } from '../core/activity';

export interface RunWorkerOptions {
  db: Database;
  /** Unique per process: whose lease a run is under. */
  owner: string;
  logger: Logger;
  /** How long a claim lasts without a heartbeat; a dead process's runs are taken over after this. */
  leaseMs: number;
  /** How often to look for work nobody woke us for (other replicas' events, expired leases). */
  pollMs: number;
  /** Runs at once in this process (threads in parallel; one run per thread is the store's rule). */
  concurrency: number;
  /**
   * Does the work of one run. `signal` aborts on cancel, lost lease or shutdown. `waiting_approval`: the run parked
   * itself (gave up its lease) to wait for a person; there is nothing to record.
   */
  execute: (run: RunRow, signal: AbortSignal) => Promise<RunOutcome | { status: 'waiting_approval' }>;
  /** Waits between attempts to record a run's end while the database is away. */
  finishRetryDelaysMs?: number[];
  /** Time and timers (polls, heartbeats, grace periods); default the system clock. */
  clock?: Clock;
  /** Where claims and runs register while in flight. */
  activity?: Activity;
}

export interface RunWorker {
  start(): void;
  /** Look for work now (a run was just queued). */
  wake(): void;
  /**
   * Stop claiming; let running answers finish for up to `graceMs`, then abort them and hand their leases back at
   * once, so the next start (or another replica) resumes them without waiting for the leases to run out.
   */
  stop(graceMs: number): Promise<void>;
  active(): number;
  /**
   * Looks for due work now, as a poll would, and resolves when the look is over: how many runs it began (0 when
   * nothing is due, or the worker is stopping).
   */
  poll(): Promise<number>;
}

/** After an abort, how long a run gets to notice it before stop() returns anyway (the process is about to exit). */
const ABORT_SETTLE_MS = 2_000;

export function createRunWorker(options: RunWorkerOptions): RunWorker {
  const running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  const finishDelays = options.finishRetryDelaysMs ?? [250, 1_000, 3_000];
  const clock = options.clock ?? systemClock;
  const activity = options.activity ?? untracked;
  let stopping = false;
  let stopPolling: (() => void) | undefined;
  let begun = 0;
  let claiming: Promise<void> | undefined;
  let wakeAgain = false;
  let claimFailures = 0;

  const claimLoop = (): Promise<void> => {
    if (claiming) {
      wakeAgain = true;
      return claiming;
    }
    const loop = (async () => {
      try {
        do {
          wakeAgain = false;
          while (!stopping && running.size < options.concurrency) {
            // Every free slot in one statement: claims come one round trip per wake-up, not one per run.
            const claimed = await claimNextRuns(options.db, options.owner, options.leaseMs, options.concurrency - running.size);
            if (claimFailures > 0) options.logger.info('claiming runs works again', { failedPolls: claimFailures });
            claimFailures = 0;
            if (claimed.length === 0) break;
            for (const run of claimed) begin(run);
          }
        } while (wakeAgain && !stopping);
      } catch (error) {
        // Once per outage at warn, not once per poll: a database that is down for minutes must not flood the log.
        claimFailures += 1;
        (claimFailures === 1 ? options.logger.warn : options.logger.debug)('could not claim runs; will retry', {
          owner: options.owner,
          retryInMs: options.pollMs,
          failedPolls: claimFailures,
          error,
        });
      }
    })();
    // Cleared in a callback, never inside the loop: a loop with nothing to do finishes synchronously, before
    // `claiming` is even assigned, and would leave it set for good.
    const current: Promise<void> = activity.track(
      loop.finally(() => {
        if (claiming === current) claiming = undefined;
      }),
    );
    claiming = current;
    return current;
  };

  const begin = (run: RunRow) => {
    begun += 1;
    const ended = activity.begin();
    const controller = new AbortController();
    const log = options.logger.child({ runId: run.id, threadId: run.threadId });
    let renewedAt = clock.now();
    const stopHeartbeat = every(clock, Math.max(250, Math.floor(options.leaseMs / 3)), async () => {
      if (controller.signal.aborted) return; // an aborted run must not keep (or win back) its lease
      try {
        const lease = await renewLease(options.db, run.id, options.owner, options.leaseMs);
        renewedAt = clock.now();
        if (!lease.held) controller.abort(new RunInterrupted('lease_lost'));
        else if (lease.cancelRequested) controller.abort(new RunInterrupted('cancelled'));
      } catch (error) {
        // Unrenewed for a whole lease, another replica may own the run by now: stop before posting beside it.
        const lost = clock.now() - renewedAt >= options.leaseMs;
        log.warn(lost ? 'lease renewal failed for a whole lease; stopping this run' : 'lease renewal failed', { error });
        if (lost) controller.abort(new RunInterrupted('lease_lost'));
      }
    });

    const done = (async () => {
      if (run.cancelRequested) {
        // Cancelled while its previous worker was dying: nothing left to do but record it.
        stopHeartbeat();
        await record(run, log, { status: 'cancelled', error: 'cancelled by a user' });
        return;
      }
      log.info(run.attempts > 1 ? 'resuming run' : 'run started', { attempt: run.attempts });
      let outcome: RunOutcome | { status: 'waiting_approval' };
      try {
        outcome = await options.execute(run, controller.signal);
      } catch (error) {
        const reason = controller.signal.reason ?? (error instanceof RunInterrupted ? error : undefined);
        if (reason instanceof RunInterrupted && reason.kind !== 'cancelled') {
          stopHeartbeat();
          // Lost lease: its new owner decides the outcome. Shutdown: hand the run to whoever starts next.
          if (reason.kind === 'shutdown') await releaseLease(options.db, run.id, options.owner).catch(() => false);
          log.warn('run interrupted; left for recovery', { reason: reason.kind });
          return;
        }
        outcome = { status: reason instanceof RunInterrupted ? 'cancelled' : 'failed', error: messageOf(error) };
        if (outcome.status === 'failed') log.error('run failed', { error });
      } finally {
        stopHeartbeat();
      }
      if (outcome.status === 'waiting_approval') log.info('run parked until its tool calls are decided');
      else await record(run, log, outcome);
    })().finally(() => {
      running.delete(run.id);
      if (!stopping) void claimLoop();
      ended();
    });
    running.set(run.id, { controller, done });
  };

  /** Records the outcome, retrying a while if the database is away: an unrecorded run would be resumed and redone. */
  const record = async (run: RunRow, log: Logger, outcome: RunOutcome) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const recorded = await finishRun(options.db, run.id, options.owner, outcome);
        log.info('run finished', { status: outcome.status, recorded });
        return;
      } catch (error) {
        if (attempt >= finishDelays.length) {
          // The lease runs out and the run is resumed; answer_ts (or the answer found in the thread) stops a repost.
          log.error('could not record the end of a run; it will be resumed after its lease expires', { status: outcome.status, error });
          return;
        }
        await sleep(clock, finishDelays[attempt]!);
      }
    }
  };

  return {
    start() {
      stopPolling = every(clock, options.pollMs, () => void claimLoop(), { background: true });
      void claimLoop();
    },
    wake() {
      if (!stopping) void claimLoop();
    },
    async stop(graceMs) {
      stopping = true;
      stopPolling?.();
      await claiming; // a claim in flight still begins its run, which then gets the same grace
      const all = Promise.all([...running.values()].map((r) => r.done));
      let cancelGrace = () => {};
      const graceOver = new Promise<'timeout'>((resolve) => (cancelGrace = clock.setTimeout(() => resolve('timeout'), graceMs, { background: true })));
      const ended = await Promise.race([all.then(() => 'done' as const), graceOver]);
      cancelGrace();
      if (ended === 'done') return;
      options.logger.warn('grace period over; interrupting answers still in progress', { runs: [...running.keys()] });
      for (const { controller } of running.values()) controller.abort(new RunInterrupted('shutdown'));
      let cancelSettle = () => {};
      await Promise.race([all, new Promise<void>((resolve) => (cancelSettle = clock.setTimeout(resolve, ABORT_SETTLE_MS, { background: true })))]);
      cancelSettle();
      // Runs that ignored the abort: give their leases back anyway; the owner check keeps them from posting.
      await Promise.all([...running.keys()].map((id) => releaseLease(options.db, id, options.owner).catch(() => false)));
    },
    active: () => running.size,
    async poll() {
      if (stopping) return 0;
      const before = begun;
      await claimLoop();
      return begun - before;
    },
  };
}
