/**
 * A run's answer channel in a Slack thread (runs/seams.ts, AnswerChannel): the status line while it works, the
 * answer streamed into the thread, and what becomes of an interrupted attempt's half-written answer.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/logger';
import type { OpenAnswerChannel } from '../runs/seams';
import { createAnswerWriter } from './answer-writer';
import { retireDraftAnswer } from './retire-draft-answer';
import { createStatusIndicator } from './status-indicator';
import { renderApprovalRequest } from './approval-message';
import type { Clock } from '../core/clock';
import { createSlackThreadOutput } from './slack-thread-output';

export interface SlackAnswerChannelOptions {
  logger: Logger;
  /** The time zone the approval messages give times in. */
  timeZone: string;
  /** Stream answers as they are written (chat.startStream); otherwise post them whole. */
  stream: boolean;
  /**
   * Display names of the thread's people, so a mention the model writes reads "@Ana" instead of an id; the run has
   * resolved them by the time it answers (the thread reader's `knownName`).
   */
  nameOf?: (userId: string) => string | undefined;
  /** Time and timers of the status line and the answer's flushes; default the system clock. */
  clock?: Clock;
}

/** How long an answer may be to be "also sent to channel" where the channel's settings ask for it. */
const SHORT_ANSWER_CHARS = 700;

export function createSlackAnswerChannels(client: WebClient, options: SlackAnswerChannelOptions): OpenAnswerChannel {
  return (target, hooks) => {
    const logger = options.logger.child({ runId: target.runId, channel: target.channelId, threadTs: target.threadTs });
    // Only a message posted whole can be broadcast: such a channel's answers are posted at the end, not streamed.
    const broadcast = target.alsoToChannel === true && !target.channelId.startsWith('D');
    return {
      status: createStatusIndicator(
        client,
        { channel: target.channelId, threadTs: target.threadTs, triggerTs: target.triggerTs },
        { logger, runId: target.runId, onStatusMessage: hooks.onStatusMessage, clock: options.clock },
      ),
      answer: createAnswerWriter(
        client,
        { channel: target.channelId, threadTs: target.threadTs, recipientUserId: target.recipientUserId, recipientTeamId: target.recipientTeamId },
        {
          stream: options.stream && !broadcast,
          broadcastUpTo: broadcast ? SHORT_ANSWER_CHARS : undefined,
          logger,
          nameOf: options.nameOf,
          clock: options.clock,
          onMessage: async (ts) => {
            await hooks.onAnswerMessage(ts);
            logger.debug('the answer started a message', { ts });
          },
        },
      ),
      retireDrafts: (drafts, note) => retireDraftAnswer(client, target.channelId, drafts, note, logger),
      async post(note) {
        await client.chat
          .postMessage({ channel: target.channelId, thread_ts: target.threadTs, ...note })
          .catch((error) => logger.warn('could not post a note in the thread', { error }));
      },
      async requestApproval(request) {
        const message = renderApprovalRequest({ ...request, timeZone: options.timeZone });
        const posted = await client.chat.postMessage({ channel: target.channelId, thread_ts: target.threadTs, ...message, unfurl_links: false });
        return posted.ts;
      },
      // Charts, tables and files from make_chart and attach_file, into the thread the run answers.
      output: createSlackThreadOutput({ api: client, channel: target.channelId, threadTs: target.threadTs }),
    };
  };
}
