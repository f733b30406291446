/**
 * The life of what was recorded before Slack heard back (store/delivery-store.ts): this process's heartbeat, so
 * that others can tell it is alive; settling the deliveries that needed no run; and, at start and then every few
 * seconds, picking up what a dead process left: deliveries replayed into Bolt, `/ask` questions finished.
 */
import type { Database } from '../store/database';
import type { Logger } from '../logging/logger';
import { every, systemClock, type Clock } from '../core/clock';
import { untracked, type Activity } from '../core/activity';
import { readLeftoverDeliveries, removeLeftoverFiles } from '../slack/receiver/delivery-journal-file.mjs';
import {
  forgetDeliveries,
  recordDeliveries,
  heartbeat,
  retireReplica,
  takeOrphanedDeliveries,
  takeOrphanedQuestions,
  type PendingQuestion,
  type StoredDelivery,
} from '../store/delivery-store';

export interface RecordedDeliveriesOptions {
  db: Database;
  replicaId: string;
  /** A replica silent this long is dead (RUN_LEASE_SECONDS): its leftovers are taken over. */
  leaseMs: number;
  logger: Logger;
  /** Whether the intake took this delivery (it then settles the record with the run). */
  tookDelivery(deliveryId: string): boolean;
  /** Hands deliveries to Bolt again; undefined where there is no HTTP receiver (Socket Mode records none). */
  replay?: (deliveries: StoredDelivery[]) => void;
  recoverQuestions(questions: PendingQuestion[]): Promise<void>;
  /** Time and timers (heartbeats, scans); default the system clock. */
  clock?: Clock;
  /** Where a scan registers while it takes over and replays what a dead process left. */
  activity?: Activity;
}

export function createRecordedDeliveries(options: RecordedDeliveriesOptions) {
  const { db, replicaId, leaseMs, logger } = options;
  const clock = options.clock ?? systemClock;
  const activity = options.activity ?? untracked;
  const toForget = new Set<string>();
  let cancelForget: (() => void) | undefined;
  let stopHeartbeat: (() => void) | undefined;
  let cancelScan: (() => void) | undefined;
  let scanning: Promise<void> | undefined;
  let stopped = false;

  const flushForgotten = async () => {
    cancelForget = undefined;
    const ids = [...toForget];
    toForget.clear();
    if (ids.length === 0) return;
    // Left in the table on failure: a later replay finds them handled (event-id dedupe) and forgets them then.
    await forgetDeliveries(db, ids).catch((error) => logger.debug('could not forget settled deliveries', { count: ids.length, error }));
  };

  const beat = () => heartbeat(db, replicaId).catch((error) => logger.warn('could not record this replica’s heartbeat', { error }));

  const scan = () => activity.track(scanOnce());
  const scanOnce = async () => {
    try {
      if (options.replay) {
        const orphans = await takeOrphanedDeliveries(db, replicaId, leaseMs);
        if (orphans.length > 0) {
          logger.info('replaying deliveries a stopped process had acknowledged but not recorded as runs', { count: orphans.length });
          options.replay(orphans);
        }
      }
      const questions = await takeOrphanedQuestions(db, replicaId, leaseMs);
      if (questions.length > 0) await options.recoverQuestions(questions);
    } catch (error) {
      logger.warn('could not look for deliveries left by a stopped process', { error });
    }
  };

  const scheduleScan = () => {
    if (stopped) return;
    cancelScan = clock.setTimeout(
      () => {
        scanning = scan().finally(scheduleScan);
      },
      Math.max(1_000, leaseMs / 2),
      { background: true },
    );
  };

  return {
    /** Called once Bolt has processed a recorded delivery (or it was dropped). */
    onDelivered(deliveryId: string) {
      if (options.tookDelivery(deliveryId)) return;
      toForget.add(deliveryId);
      if (toForget.size >= 200) void flushForgotten();
      else cancelForget ??= clock.setTimeout(() => void flushForgotten(), 200);
    },
    /** Registers this replica (its heartbeat) before it records anything, so that no other takes it for dead. */
    async register() {
      await beat();
      stopHeartbeat ??= every(clock, Math.max(500, leaseMs / 3), () => void beat(), { background: true });
    },
    /** Picks up at once what dead processes left, then keeps looking every half lease. */
    async start() {
      scanning = scan();
      await scanning;
      scheduleScan();
    },
    async stop() {
      stopped = true;
      stopHeartbeat?.();
      cancelScan?.();
      await scanning;
      cancelForget?.();
      await flushForgotten();
      // What this process recorded and did not settle is left for the next one; it says it is gone so that the
      // next one need not wait out the lease.
      await retireReplica(db, replicaId).catch(() => {});
    },
  };
}

/**
 * Moves the deliveries a stopped process acknowledged and left in its journal files (DATA_DIR/deliveries) into
 * slack_deliveries, before this one receives or replays anything: from there they are replayed like any other
 * delivery a dead process left. Returns how many were moved.
 */
export async function moveLeftoverJournal(db: Database, dir: string): Promise<number> {
  const { deliveries, files } = readLeftoverDeliveries(dir);
  for (let start = 0; start < deliveries.length; start += 200) await recordDeliveries(db, deliveries.slice(start, start + 200));
  removeLeftoverFiles(files);
  return deliveries.length;
}
