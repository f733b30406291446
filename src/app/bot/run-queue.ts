/**
 * From a taken-in message to a running answer: the intake (who may ask, one durable run row per question, files read
 * ahead) and the worker (claims runs under a lease, a few at once, resumes what a dead replica left).
 */
import type { Config } from '../../config';
import type { Activity } from '../../core/activity';
import type { Clock } from '../../core/clock';
import type { Logger } from '../../logging/logger';
import { createIntake, type IntakeDependencies } from '../../runs/intake';
import { createRunWorker } from '../../runs/run-worker';
import type { Database } from '../../store/database';
import type { RunExecutor } from '../compose';

export interface RunQueueParts {
  db: Database;
  logger: Logger;
  /** This replica, as the owner of the runs it claims. */
  replicaId: string;
  leaseMs: number;
  pollMs: number;
  /** Runs at once in this process. */
  concurrency: number;
  execute: RunExecutor;
  clock: Clock;
  /** Data-path work in flight, for idle(). */
  activity: Activity;
  /** Says in Slack why a question gets no answer. */
  tellRefusal: IntakeDependencies['onRefused'];
  /** Reads a message's files before its run starts. */
  prefetchFiles: NonNullable<IntakeDependencies['onFiles']>;
  /** A journaled delivery the database refused to take: settled, so it is not replayed forever. */
  settleDelivery: (deliveryId: string) => void;
}

export function createRunQueue(config: Config, parts: RunQueueParts) {
  const { db, logger } = parts;
  const worker = createRunWorker({
    db,
    owner: parts.replicaId,
    logger,
    leaseMs: parts.leaseMs,
    pollMs: parts.pollMs,
    concurrency: parts.concurrency,
    execute: parts.execute,
    clock: parts.clock,
    activity: parts.activity,
  });
  const intake = createIntake({
    db,
    logger,
    clock: parts.clock,
    activity: parts.activity,
    policy: {
      allowedChannels: config.slack.allowedChannels,
      allowedUsers: config.slack.allowedUsers,
      allowDirectMessages: config.slack.allowDirectMessages,
      userRateLimitPerMinute: config.slack.userRateLimitPerMinute,
      dailyLimits: { userUsd: config.limits.dailyUserUsd, channelUsd: config.limits.dailyChannelUsd },
    },
    onQueued: () => worker.wake(),
    onRefusedByDatabase: ({ deliveryIds }) => deliveryIds.forEach(parts.settleDelivery),
    onRefused: parts.tellRefusal,
    onFiles: parts.prefetchFiles,
  });
  return { worker, intake };
}
