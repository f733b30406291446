import type { Database } from '../store/db';
import { claimEvent, claimMessage } from '../store/event-store';
import { upsertThread } from '../store/thread-store';
import { enqueueRun } from '../store/run-store';
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
  /** Backoff while the database is unreachable. */
  retryDelaysMs?: number[];
}

export interface Intake {
  /** Never blocks and never throws: Slack gets its acknowledgement at once, whatever the database is doing. */
  submit(item: IntakeItem): void;
  /** Resolves when everything submitted so far has been written (or dropped as a duplicate). */
  drain(): Promise<void>;
  pending(): number;
}

/**
 * Between Slack's acknowledgement and the durable run row. Holds events in memory only while the database is
 * unreachable, retrying with backoff, so a brief outage loses nothing and never makes Slack retry.
 */
export function createIntake(deps: IntakeDependencies): Intake {
  const delays = deps.retryDelaysMs ?? [100, 250, 500, 1000, 2000, 5000];
  const inFlight = new Set<Promise<void>>();

  const process = async (item: IntakeItem) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await admit(item);
        return;
      } catch (error) {
        const delay = delays[Math.min(attempt, delays.length - 1)]!;
        deps.logger.warn('could not record an incoming message; retrying', {
          channel: item.trigger.channelId,
          ts: item.trigger.messageTs,
          attempt: attempt + 1,
          retryInMs: delay,
          error,
        });
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  };

  const admit = async ({ eventId, trigger }: IntakeItem) => {
    if (eventId && !(await claimEvent(deps.db, eventId))) return;
    const refusal = await checkAccess(deps.db, deps.policy, trigger);
    if (!(await claimMessage(deps.db, trigger.channelId, trigger.messageTs))) return;
    const thread = await upsertThread(deps.db, {
      teamId: trigger.teamId,
      channelId: trigger.channelId,
      threadTs: trigger.threadTs,
      engaged: trigger.engages && !refusal,
    });
    if (trigger.needsEngagedThread && !thread.engaged) return;
    if (refusal) {
      await deps.onRefused(trigger, refusal).catch((error) =>
        deps.logger.warn('could not tell a user they were refused', { channel: trigger.channelId, error }),
      );
      return;
    }
    if (trigger.hasFiles) deps.onFiles?.(trigger, thread.id);
    const { run, folded } = await enqueueRun(deps.db, {
      threadId: thread.id,
      triggerTs: trigger.messageTs,
      triggerUserId: trigger.userId,
      teamId: trigger.teamId,
    });
    deps.logger.info(folded ? 'message folded into the waiting run' : 'run queued', {
      runId: run.id,
      channel: trigger.channelId,
      threadTs: trigger.threadTs,
      ts: trigger.messageTs,
    });
    deps.onQueued();
  };

  return {
    submit(item) {
      const work = process(item).finally(() => inFlight.delete(work));
      inFlight.add(work);
    },
    async drain() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    pending: () => inFlight.size,
  };
}
