/**
 * "Ask threadwise" where a slash command cannot go: the message shortcut (on any message, including replies in a
 * thread) opens a small form and answers in that message's thread, with the thread as context; the global shortcut
 * asks in the person's DM with threadwise.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/logger';
import type { Intake } from '../runs/intake';
import type { Database } from '../store/database';
import { slackErrorCode } from '../core/errors';
import { askOnBehalf, QuestionNotRecorded } from './ask-on-behalf';
import type { ViewHost } from './settings-surface';

const MESSAGE_SHORTCUT_ID = 'threadwise_ask_message';
const GLOBAL_SHORTCUT_ID = 'threadwise_ask_global';
const ASK_VIEW_ID = 'threadwise_ask';

export interface ShortcutHost extends ViewHost {
  shortcut(callbackId: string, listener: (args: { ack(): Promise<void>; shortcut: any; body: any; client: WebClient }) => Promise<void>): unknown;
}

export interface AskShortcutDependencies {
  db: Database;
  intake: Intake;
  /** This process, as the owner of the questions it records. */
  replicaId: string;
  botName: string;
  logger: Logger;
}

interface AskTarget {
  teamId?: string;
  /** Absent: the asker's DM. */
  channelId?: string;
  threadTs?: string;
}

function buildAskView(target: AskTarget, where: string) {
  return {
    type: 'modal' as const,
    callback_id: ASK_VIEW_ID,
    private_metadata: JSON.stringify(target),
    title: { type: 'plain_text' as const, text: 'Ask threadwise' },
    submit: { type: 'plain_text' as const, text: 'Ask' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    blocks: [
      { type: 'context', elements: [{ type: 'mrkdwn', text: where }] },
      {
        type: 'input',
        block_id: 'question',
        label: { type: 'plain_text', text: 'Your question' },
        element: { type: 'plain_text_input', action_id: 'value', multiline: true, max_length: 3000, focus_on_load: true },
      },
    ],
  };
}

export function registerAskShortcuts(app: ShortcutHost, deps: AskShortcutDependencies): void {
  app.shortcut(MESSAGE_SHORTCUT_ID, async ({ ack, shortcut, client }) => {
    await ack();
    const message = shortcut.message ?? {};
    const target: AskTarget = {
      teamId: shortcut.team?.id,
      channelId: shortcut.channel?.id,
      threadTs: message.thread_ts ?? message.ts,
    };
    await client.views
      .open({ trigger_id: shortcut.trigger_id, view: buildAskView(target, 'I’ll answer in this message’s thread, reading the whole thread and its files.') as never })
      .catch((error) => deps.logger.warn('could not open the ask form', { channel: target.channelId, error }));
  });

  app.shortcut(GLOBAL_SHORTCUT_ID, async ({ ack, shortcut, client }) => {
    await ack();
    await client.views
      .open({ trigger_id: shortcut.trigger_id, view: buildAskView({ teamId: shortcut.team?.id }, 'I’ll answer in your direct messages with me.') as never })
      .catch((error) => deps.logger.warn('could not open the ask form', { error }));
  });

  app.view(ASK_VIEW_ID, async ({ ack, body, view, client }) => {
    const user: string = body.user?.id ?? '';
    const question = String(view.state?.values?.question?.value?.value ?? '').trim();
    if (!question) {
      await ack({ response_action: 'errors', errors: { question: 'Write a question for threadwise to answer.' } });
      return;
    }
    let target: AskTarget;
    try {
      target = JSON.parse(view.private_metadata ?? '{}') as AskTarget;
    } catch {
      target = {};
    }
    try {
      // Recorded, then posted, before the form closes: a crash from here on does not lose the question (the next
      // start finishes it), and a channel the bot is not in is said in the form itself.
      if (target.channelId) {
        await askOnBehalf(client, deps, { channel: target.channelId, threadTs: target.threadTs, userId: user, teamId: target.teamId ?? body.team?.id, question, via: 'via the shortcut', engages: false });
      } else {
        await askOnBehalf(client, deps, { channel: user, userId: user, teamId: target.teamId ?? body.team?.id, question, engages: true });
      }
      await ack();
    } catch (error) {
      // The form stays open with the question in it: the asker can send it again.
      if (error instanceof QuestionNotRecorded) {
        deps.logger.warn('could not record a shortcut question', { channel: target.channelId, error: error.cause });
        await ack({ response_action: 'errors', errors: { question: 'Sorry — I couldn’t take your question just now (my database isn’t answering). Please try again in a minute.' } });
        return;
      }
      const code = slackErrorCode(error);
      deps.logger.warn('could not post a shortcut question', { channel: target.channelId, code });
      await ack({
        response_action: 'errors',
        errors: {
          question:
            code === 'not_in_channel' || code === 'channel_not_found'
              ? `I’m not in that channel. Invite me with /invite @${deps.botName}, then ask again.`
              : `Sorry, I couldn’t post your question (${code ?? 'unknown error'}). Please try again.`,
        },
      });
    }
  });
}
