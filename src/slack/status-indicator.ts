import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/logger';
import { STATUS_EVENT } from '../conversation';

export interface StatusIndicator {
  /** Shows what the bot is doing now ("reading report.pdf…"). Never throws. */
  set(status: string): Promise<void>;
  /** Removes every trace of the status once the answer is there. Never throws. */
  clear(): Promise<void>;
}

export interface StatusTarget {
  channel: string;
  threadTs: string;
  /** The message that asked: the reaction fallback goes on it. */
  triggerTs: string;
}

const STATUS_EDIT_INTERVAL_MS = 1000;
const LOADING_MESSAGES = ['Reading the thread…', 'Thinking…', 'Checking the files…'];

/**
 * Shows work in progress. First choice: `assistant.threads.setStatus` (the native "is thinking…" line). Where Slack
 * refuses it, an edited status message in the thread (throttled to about one edit a second), deleted when the
 * answer lands; where even that fails, an :eyes: reaction on the question.
 */
export function createStatusIndicator(client: WebClient, target: StatusTarget, logger: Logger): StatusIndicator {
  let mode: 'native' | 'message' | 'reaction' | 'none' = 'native';
  let statusMessageTs: string | undefined;
  let reacted = false;
  let lastEdit = 0;
  let queued: string | undefined;
  let flush: NodeJS.Timeout | undefined;

  const editStatusMessage = async (status: string) => {
    lastEdit = Date.now();
    const text = `_${status}_`;
    if (statusMessageTs) {
      await client.chat.update({ channel: target.channel, ts: statusMessageTs, text });
    } else {
      const posted = await client.chat.postMessage({
        channel: target.channel,
        thread_ts: target.threadTs,
        text,
        metadata: { event_type: STATUS_EVENT, event_payload: {} },
      });
      statusMessageTs = posted.ts;
    }
  };

  const react = async () => {
    if (reacted) return;
    await client.reactions.add({ channel: target.channel, timestamp: target.triggerTs, name: 'eyes' }).catch(() => {});
    reacted = true;
  };

  return {
    async set(status) {
      try {
        if (mode === 'native') {
          try {
            await client.assistant.threads.setStatus({
              channel_id: target.channel,
              thread_ts: target.threadTs,
              status,
              loading_messages: LOADING_MESSAGES,
            });
            return;
          } catch (error) {
            logger.debug('assistant.threads.setStatus refused; using a status message', { error });
            mode = 'message';
          }
        }
        if (mode === 'message') {
          const wait = STATUS_EDIT_INTERVAL_MS - (Date.now() - lastEdit);
          if (wait > 0 && statusMessageTs) {
            queued = status;
            flush ??= setTimeout(() => {
              flush = undefined;
              const next = queued;
              queued = undefined;
              if (next) void editStatusMessage(next).catch(() => {});
            }, wait);
            return;
          }
          try {
            await editStatusMessage(status);
          } catch (error) {
            logger.debug('status message failed; using a reaction', { error });
            mode = 'reaction';
          }
        }
        if (mode === 'reaction') {
          await react();
          mode = 'none';
        }
      } catch (error) {
        logger.debug('status update failed', { error });
      }
    },
    async clear() {
      if (flush) clearTimeout(flush);
      queued = undefined;
      if (mode === 'native') {
        await client.assistant.threads
          .setStatus({ channel_id: target.channel, thread_ts: target.threadTs, status: '' })
          .catch(() => {});
      }
      if (statusMessageTs) {
        await client.chat.delete({ channel: target.channel, ts: statusMessageTs }).catch(() => {});
        statusMessageTs = undefined;
      }
      if (reacted) {
        await client.reactions.remove({ channel: target.channel, timestamp: target.triggerTs, name: 'eyes' }).catch(() => {});
      }
    },
  };
}
