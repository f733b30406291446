import type { Database } from '../store/db';
import { claimNextRun, finishRun, renewLease, type RunOutcome, type RunRow } from '../store/run-store';
import type { Logger } from '../logging/logger';

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
  /** Does the work of one run. `signal` aborts on cancel, lost lease or shutdown. */
  execute: (run: RunRow, signal: AbortSignal) => Promise<RunOutcome>;
}

export interface RunWorker {
  start(): void;
  /** Look for work now (a run was just queued). */
  wake(): void;
  /** Stop claiming; let running answers finish for up to `graceMs`, then abort them (the next start resumes them). */
  stop(graceMs: number): Promise<void>;
  active(): number;
}

export function createRunWorker(options: RunWorkerOptions): RunWorker {
  const running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let claiming = false;
  let wakeAgain = false;

  const claimLoop = async () => {
    if (claiming) {
      wakeAgain = true;
      return;
    }
    claiming = true;
    try {
      do {
        wakeAgain = false;
        while (!stopping && running.size < options.concurrency) {
          const run = await claimNextRun(options.db, options.owner, options.leaseMs);
          if (!run) break;
          begin(run);
        }
      } while (wakeAgain && !stopping);
    } catch (error) {
      options.logger.warn('could not claim runs; will retry', { error });
    } finally {
      claiming = false;
    }
  };

  const begin = (run: RunRow) => {
    const controller = new AbortController();
    const heartbeat = setInterval(async () => {
      try {
        const lease = await renewLease(options.db, run.id, options.owner, options.leaseMs);
        if (!lease.held) controller.abort(new RunInterrupted('lease_lost'));
        else if (lease.cancelRequested) controller.abort(new RunInterrupted('cancelled'));
      } catch (error) {
        options.logger.warn('lease renewal failed', { runId: run.id, error });
      }
    }, Math.max(250, Math.floor(options.leaseMs / 3)));

    const done = (async () => {
      const log = options.logger.child({ runId: run.id, threadId: run.threadId });
      log.info(run.attempts > 1 ? 'resuming run' : 'run started', { attempt: run.attempts });
      let outcome: RunOutcome;
      try {
        outcome = await options.execute(run, controller.signal);
      } catch (error) {
        const reason = controller.signal.reason;
        if (reason instanceof RunInterrupted && reason.kind !== 'cancelled') {
          // Lost lease or shutdown: someone (maybe the next start) finishes it; record nothing.
          log.warn('run interrupted; left for recovery', { reason: reason.kind });
          return;
        }
        outcome = { status: 'failed', error: error instanceof Error ? error.message : String(error) };
        log.error('run failed', { error });
      } finally {
        clearInterval(heartbeat);
      }
      const recorded = await finishRun(options.db, run.id, options.owner, outcome).catch((error) => {
        log.error('could not record the end of a run', { error });
        return false;
      });
      log.info('run finished', { status: outcome.status, recorded });
    })().finally(() => {
      running.delete(run.id);
      if (!stopping) void claimLoop();
    });
    running.set(run.id, { controller, done });
  };

  return {
    start() {
      timer = setInterval(() => void claimLoop(), options.pollMs);
      timer.unref();
      void claimLoop();
    },
    wake() {
      if (!stopping) void claimLoop();
    },
    async stop(graceMs) {
      stopping = true;
      if (timer) clearInterval(timer);
      const all = Promise.all([...running.values()].map((r) => r.done));
      const graceOver = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
      if ((await Promise.race([all.then(() => 'done' as const), graceOver])) === 'timeout') {
        for (const { controller } of running.values()) controller.abort(new RunInterrupted('shutdown'));
        await Promise.race([all, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      }
    },
    active: () => running.size,
  };
}

/** Why a run's signal was aborted from outside the run. */
export class RunInterrupted extends Error {
  override readonly name = 'RunInterrupted';
  constructor(readonly kind: 'cancelled' | 'lease_lost' | 'shutdown') {
    super(kind === 'cancelled' ? 'The answer was cancelled.' : `The run was interrupted (${kind}).`);
  }
}
