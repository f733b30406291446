import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/logger';
import { STATUS_EVENT } from '../conversation';
import { CANCEL_ACTION_ID } from './cancel-button';
import { every, systemClock, type Clock } from '../core/clock';

export interface StatusIndicator {
  /**
   * Shows what the bot is doing now ("reading report.pdf…"). `loadingMessages` rotate in Slack's native status
   * while a step may take a while. Calls are applied in order; never throws.
   */
  set(status: string, loadingMessages?: string[]): Promise<void>;
  /** Removes every trace of the status once the answer is there. Waits for pending updates; never throws. */
  clear(): Promise<void>;
}

export interface StatusTarget {
  channel: string;
  threadTs: string;
  /** The message that asked: the reaction fallback goes on it. */
  triggerTs: string;
}

export interface StatusOptions {
  logger: Logger;
  /** The run, for the Stop button on the fallback status message. */
  runId?: number;
  /**
   * Told the status message's ts when one is posted, and null when it is deleted: recorded on the run, a :x:
   * reaction on that message cancels the answer.
   */
  onStatusMessage?: (ts: string | null) => Promise<void> | void;
  /** At most one edit of the status message per this many ms (Slack allows about one update a second). */
  editIntervalMs?: number;
  /** Slack drops a native status after two minutes without a message; a long step re-sends it this often. */
  refreshMs?: number;
  /** Time and timers (edit spacing, refreshes); default the system clock. */
  clock?: Clock;
}

/**
 * Shows work in progress. First choice: `assistant.threads.setStatus` (the native "is thinking…" line). Where Slack
 * refuses it, a status message in the thread with a Stop button, edited at most about once a second (statuses that
 * come faster are merged: the newest wins) and deleted when the answer lands; where even that fails, an :eyes:
 * reaction on the question. Updates go out one at a time, so Slack never sees them out of order, and clear() comes
 * after all of them.
 */
export function createStatusIndicator(client: WebClient, target: StatusTarget, options: StatusOptions): StatusIndicator {
  const logger = options.logger;
  const interval = options.editIntervalMs ?? 1_000;
  const clock = options.clock ?? systemClock;
  let mode: 'native' | 'message' | 'reaction' | 'none' = 'native';
  let statusMessageTs: string | undefined;
  let reacted = false;
  let lastEdit = Number.NEGATIVE_INFINITY;
  let cleared = false;
  const queue: Array<{ status: string; loadingMessages?: string[] }> = [];
  let draining: Promise<void> | undefined;
  let wakeEarly: (() => void) | undefined;
  let latest: { status: string; loadingMessages?: string[] } | undefined;
  let stopRefresh: (() => void) | undefined;

  const statusBlocks = (status: string): KnownBlock[] => [
    { type: 'context', elements: [{ type: 'mrkdwn', text: `_${status}_` }] },
    ...(options.runId === undefined
      ? []
      : [
          {
            type: 'actions' as const,
            block_id: `cancel_${options.runId}`,
            elements: [
              {
                type: 'button' as const,
                action_id: CANCEL_ACTION_ID,
                text: { type: 'plain_text' as const, text: 'Stop' },
                value: String(options.runId),
                style: 'danger' as const,
              },
            ],
          },
        ]),
  ];

  const editStatusMessage = async (status: string) => {
    const wait = lastEdit + interval - clock.now();
    if (wait > 0 && statusMessageTs) {
      await new Promise<void>((resolve) => {
        const cancel = clock.setTimeout(resolve, wait);
        wakeEarly = () => {
          cancel();
          resolve();
        };
      });
      wakeEarly = undefined;
      if (cleared) return;
      // A newer status arrived while we waited: show that one instead.
      const newest = queue.splice(0).at(-1);
      if (newest) status = newest.status;
    }
    lastEdit = clock.now();
    const text = `_${status}_`;
    if (statusMessageTs) {
      await client.chat.update({ channel: target.channel, ts: statusMessageTs, text, blocks: statusBlocks(status) });
      return;
    }
    const posted = await client.chat.postMessage({
      channel: target.channel,
      thread_ts: target.threadTs,
      text,
      blocks: statusBlocks(status),
      metadata: { event_type: STATUS_EVENT, event_payload: options.runId === undefined ? {} : { run_id: options.runId } },
    });
    statusMessageTs = posted.ts;
    if (statusMessageTs) await Promise.resolve(options.onStatusMessage?.(statusMessageTs)).catch((error) => logger.warn('could not record the status message', { error }));
  };

  const apply = async (status: string, loadingMessages?: string[]) => {
    if (mode === 'native') {
      try {
        await client.assistant.threads.setStatus({
          channel_id: target.channel,
          thread_ts: target.threadTs,
          status,
          ...(loadingMessages?.length ? { loading_messages: loadingMessages.slice(0, 10) } : {}),
        });
        return;
      } catch (error) {
        logger.debug('assistant.threads.setStatus refused; using a status message', { error });
        mode = 'message';
      }
    }
    if (mode === 'message') {
      try {
        await editStatusMessage(status);
        return;
      } catch (error) {
        logger.debug('status message failed; using a reaction', { error });
        // A scheduled task's run has no message that asked (its trigger is the occurrence): nothing to react on.
        mode = statusMessageTs || !/^\d+\.\d+$/.test(target.triggerTs) ? 'none' : 'reaction';
      }
    }
    if (mode === 'reaction') {
      await client.reactions.add({ channel: target.channel, timestamp: target.triggerTs, name: 'eyes' }).catch(() => {});
      reacted = true;
      mode = 'none';
    }
  };

  // The loop and the reset of `draining` run in one go after the last await, so a set() can never slip in between
  // the queue running dry and the loop ending.
  const drain = async () => {
    while (queue.length > 0 && !cleared) {
      const next = queue.shift()!;
      try {
        await apply(next.status, next.loadingMessages);
      } catch (error) {
        logger.debug('status update failed', { error });
      }
    }
    draining = undefined;
  };

  return {
    set(status, loadingMessages) {
      if (cleared) return Promise.resolve();
      latest = { status, loadingMessages };
      stopRefresh ??= every(
        clock,
        options.refreshMs ?? 90_000,
        () => {
          if (mode === 'native' && latest && queue.length === 0 && !cleared) {
            queue.push(latest);
            draining ??= drain();
          }
        },
        { background: true },
      );
      queue.push({ status, loadingMessages });
      draining ??= drain();
      return draining;
    },
    async clear() {
      cleared = true;
      stopRefresh?.();
      queue.length = 0;
      wakeEarly?.();
      await draining;
      if (mode === 'native') {
        await client.assistant.threads.setStatus({ channel_id: target.channel, thread_ts: target.threadTs, status: '' }).catch(() => {});
      }
      if (statusMessageTs) {
        await client.chat.delete({ channel: target.channel, ts: statusMessageTs }).catch(() => {});
        statusMessageTs = undefined;
        await Promise.resolve(options.onStatusMessage?.(null)).catch(() => {});
      }
      if (reacted) {
        await client.reactions.remove({ channel: target.channel, timestamp: target.triggerTs, name: 'eyes' }).catch(() => {});
        reacted = false;
      }
    },
  };
}
