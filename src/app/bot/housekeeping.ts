/**
 * What the bot does on a timer, beside answering: prunes dedupe records (they only need to outlive Slack's
 * retries), sweeps content past RETENTION_DAYS, and expires tool calls nobody decided in time (any replica may;
 * each expires once, and its run carries on).
 */
import type { WebClient } from '@slack/web-api';
import type { Config } from '../../config';
import type { Activity } from '../../core/activity';
import { every, type Clock } from '../../core/clock';
import type { Logger } from '../../logging/logger';
import { expireWaitingApprovals } from '../../slack/approval-actions';
import type { Database } from '../../store/database';
import { pruneDedupeRecords } from '../../store/event-store';
import { sweepExpiredContent } from '../../store/retention';
import { expireWaitingSignIns } from '../../runs/park-for-sign-in';
import type { SignInParts } from '../sign-in';

/** How often dedupe records are pruned and content past RETENTION_DAYS is swept. */
const HOUSEKEEPING_MS = 60 * 60_000;
/** How often waiting approvals are checked for expiry. */
const APPROVAL_SWEEP_MS = 15_000;

export interface HousekeepingParts {
  db: Database;
  client: WebClient;
  logger: Logger;
  clock: Clock;
  /** Data-path work in flight, for idle(). */
  activity: Activity;
  onRunResumable: () => void;
  /** Tests: shorter periods. */
  housekeepingMs?: number;
  firstHousekeepingMs?: number;
  approvalSweepMs?: number;
  /** Per-person sign-in: sign-ins nobody finished expire beside the approvals; grants follow RETENTION_DAYS. */
  signIn?: Pick<SignInParts, 'expire' | 'sweep'>;
}

/** Starts the timers; returns what stops them. */
export function startHousekeeping(config: Pick<Config, 'retentionDays' | 'timeZone'>, parts: HousekeepingParts): () => void {
  const { db, logger, clock, activity } = parts;
  const sweep = () => {
    activity.track(pruneDedupeRecords(db)).catch((error) => logger.warn('could not prune old dedupe records', { error }));
    if (config.retentionDays > 0) {
      activity.track(sweepExpiredContent(db, config.retentionDays)).then(
        (swept) => logger.info('retention sweep', { retentionDays: config.retentionDays, ...swept }),
        (error) => logger.warn('could not sweep content past RETENTION_DAYS', { error }),
      );
    }
    parts.signIn?.sweep(config.retentionDays).then(
      (swept) => (swept.grants > 0 || swept.signIns > 0) && logger.info('retention sweep of per-person grants', { retentionDays: config.retentionDays, ...swept }),
      (error) => logger.warn('could not sweep per-person grants', { error }),
    );
  };
  const approvals = { db, timeZone: config.timeZone, logger, onRunResumable: parts.onRunResumable };
  const expire = () => {
    activity.track(expireWaitingApprovals(parts.client, approvals)).catch((error) => logger.warn('could not expire waiting approvals', { error }));
    const signIn = parts.signIn;
    if (signIn) activity.track(expireWaitingSignIns({ expire: () => signIn.expire(), onRunResumable: parts.onRunResumable, logger })).catch((error) => logger.warn('could not expire waiting sign-ins', { error }));
  };
  const stops = [
    every(clock, parts.housekeepingMs ?? HOUSEKEEPING_MS, sweep, { background: true }),
    // And once at start, shortly after: a process restarted more often than hourly still sweeps.
    clock.setTimeout(sweep, parts.firstHousekeepingMs ?? 10_000, { background: true }),
    every(clock, parts.approvalSweepMs ?? APPROVAL_SWEEP_MS, expire, { background: true }),
  ];
  return () => stops.forEach((stop) => stop());
}
