import type { WebClient } from '@slack/web-api';
import type { BotIdentity } from '../conversation';
import type { Logger } from '../logging/logger';
import type { Intake } from '../runs/intake';
import type { Database } from '../store/database';
import { findActiveRunByMessage, requestCancel, saveFeedback } from '../store/run-store';
import { recordQuestion } from '../store/delivery-store';
import { forgetRefusedQuestion, newQuestion, postRecordedQuestion } from './ask-on-behalf';
import { forgetSlackFile, forgetSlackMessage } from '../store/retention';
import type { SkillSummary } from '../skills/types';
import { formatSkillList } from '../skills';
import { decideTrigger, type IncomingMessage } from './decide-trigger';
import { formatToolList, type ToolListing } from './format-tool-list';
import { FEEDBACK_ACTION_ID, parseFeedbackValue } from './feedback-block';
import { CANCEL_ACTION_ID, parseCancelValue } from './cancel-button';

export interface ListenerDependencies {
  db: Database;
  intake: Intake;
  bot: BotIdentity;
  /** The channel's "reply without mention" setting (its own, or the workspace default). */
  replyWithoutMention: (teamId: string | undefined, channelId: string) => Promise<boolean>;
  /** `/ask <word>` handled elsewhere (e.g. `settings` → the settings form), by word. */
  subcommands?: Record<string, (command: SlashCommandArgs) => Promise<void>>;
  skills: () => SkillSummary[];
  /** The tools offered in a channel, for `/ask tools`. */
  tools: (channelId: string) => ToolListing[];
  logger: Logger;
  /** This process, as the owner of the `/ask` questions it records. */
  replicaId: string;
}

/** Reactions that stop a running answer when put on the question (or the bot's status message). */
const CANCEL_REACTIONS = new Set(['x', 'octagonal_sign', 'no_entry', 'stop_sign']);

export const ASK_USAGE =
  'Ask me anything: `/ask <your question>` — I’ll post your question here and answer in its thread, where you can follow up. `/ask skills` lists what I know how to format (Jira, Notion, Slack…); `/ask tools` lists the tools I can use here; `/ask settings` changes how I behave in this channel. You can also @mention me in any thread.';

/**
 * The part of Bolt's App the listeners register on, by shape: only the composition root imports Bolt, and hands
 * its App in here. Payloads arrive as Slack sent them and are read defensively.
 */
export interface SlackListenerHost {
  /** `context.deliveryId`: the recorded delivery it came in (the receiver's customProperties), when recorded. */
  event(name: string, listener: (args: { event: any; body: any; context: { deliveryId?: string } }) => Promise<void>): unknown;
  command(
    name: string,
    listener: (args: {
      command: { text: string; channel_id: string; user_id: string; team_id: string };
      ack(response?: { response_type: 'ephemeral'; text: string }): Promise<void>;
      respond(message: { response_type: 'ephemeral' | 'in_channel'; text: string }): Promise<unknown>;
      client: WebClient;
    }) => Promise<void>,
  ): unknown;
  action(actionId: string, listener: (args: { ack(): Promise<void>; action: unknown; body: any; client: WebClient }) => Promise<void>): unknown;
}

export type SlashCommandArgs = Parameters<Parameters<SlackListenerHost['command']>[1]>[0] & { command: { trigger_id?: string } };

export function registerListeners(app: SlackListenerHost, deps: ListenerDependencies): void {
  const onMessage = async ({ event, body, context }: { event: any; body: unknown; context: { deliveryId?: string } }) => {
    if (event.type === 'message' && event.subtype === 'message_deleted') {
      // Deleted in Slack: what threadwise derived from it goes too (the cached copy, its thread's summary, its files).
      const fileIds = ((event.previous_message?.files ?? []) as Array<{ id: string }>).map((file) => file.id);
      const removed = await forgetSlackMessage(deps.db, event.channel, event.deleted_ts, fileIds);
      deps.logger.info('a message was deleted in Slack; removed what was derived from it', { channel: event.channel, ts: event.deleted_ts, files: removed.length });
      return;
    }
    const trigger = decideTrigger(event as IncomingMessage, deps.bot, true);
    if (!trigger) return;
    const envelope = body as { event_id?: string; team_id?: string };
    // Only a follow-up without a mention depends on the channel's setting: look it up (cached) for those alone.
    if (trigger.needsEngagedThread && !(await deps.replyWithoutMention(trigger.teamId ?? envelope.team_id, trigger.channelId))) return;
    deps.intake.submit({
      eventId: envelope.event_id,
      trigger: { ...trigger, teamId: trigger.teamId ?? envelope.team_id },
      // Its record of receipt is settled in the transaction that writes its run.
      ...(typeof context?.deliveryId === 'string' ? { deliveryId: context.deliveryId } : {}),
    });
  };
  app.event('app_mention', onMessage);
  app.event('message', onMessage);

  app.event('file_deleted', async ({ event }) => {
    const removed = await forgetSlackFile(deps.db, event.file_id);
    deps.logger.info('a file was deleted in Slack; removed what was derived from it', { slackFileId: event.file_id, ...removed });
  });

  app.command('/ask', async (args) => {
    const { command, ack, respond, client } = args;
    const question = command.text.trim();
    const subcommand = deps.subcommands?.[question.toLowerCase()];
    if (subcommand) {
      await ack();
      await subcommand(args);
      return;
    }
    if (!question || question === 'help') {
      await ack();
      await respond({ response_type: 'ephemeral', text: ASK_USAGE });
      return;
    }
    if (question === 'skills') {
      await ack();
      await respond({ response_type: 'ephemeral', text: formatSkillList(deps.skills()) });
      return;
    }
    if (question === 'tools') {
      await ack();
      await respond({ response_type: 'ephemeral', text: formatToolList(deps.tools(command.channel_id)) });
      return;
    }
    // Recorded before Slack hears back and before it is posted: from here on a crash does not lose the question
    // (recoverQuestions finishes it), and the run is written in the transaction that settles this record.
    // Slash commands cannot be used in threads and carry no thread_ts: the question starts a thread of its own.
    const pending = newQuestion(deps, { channel: command.channel_id, userId: command.user_id, teamId: command.team_id || undefined, question, engages: true });
    try {
      await recordQuestion(deps.db, pending);
    } catch (error) {
      deps.logger.warn('/ask could not record the question', { channel: command.channel_id, error });
      await ack({ response_type: 'ephemeral', text: 'Sorry — I couldn’t take your question just now (my database isn’t answering). Please try again in a minute.' });
      return;
    }
    await ack();
    try {
      await postRecordedQuestion(client, deps, pending);
    } catch (error) {
      // Slack answered and said no: nothing to finish later. (Without an answer — a network error — it stays, and
      // is finished once this process is gone, like any other left over.)
      const code = await forgetRefusedQuestion(deps.db, pending, error);
      deps.logger.warn('/ask could not post the question', { channel: command.channel_id, code });
      await respond({
        response_type: 'ephemeral',
        text:
          code === 'not_in_channel' || code === 'channel_not_found'
            ? 'I’m not in this channel yet. Invite me with `/invite @' + deps.bot.name + '`, or send me a direct message.'
            : `Sorry, I couldn’t post your question here (${code ?? 'unknown error'}). Try @mentioning me instead.`,
      });
    }
  });

  app.action(FEEDBACK_ACTION_ID, async ({ ack, action, body, client }) => {
    await ack();
    const parsed = parseFeedbackValue((action as { value?: string }).value ?? '');
    if (!parsed) return;
    const user = body.user.id;
    const channel = (body as { channel?: { id: string } }).channel?.id;
    const threadTs = (body as { message?: { thread_ts?: string } }).message?.thread_ts;
    try {
      await saveFeedback(deps.db, parsed.runId, user, parsed.value);
    } catch (error) {
      deps.logger.warn('could not store feedback', { runId: parsed.runId, user, error });
      if (channel) await client.chat.postEphemeral({ channel, user, thread_ts: threadTs, text: 'Sorry — I couldn’t save your feedback just now. Please try again in a moment.' }).catch(() => {});
      return;
    }
    deps.logger.info('feedback stored', { runId: parsed.runId, user, value: parsed.value });
    if (channel) {
      await client.chat
        .postEphemeral({
          channel,
          user,
          thread_ts: threadTs,
          text: parsed.value === 'positive' ? 'Thanks — glad it helped.' : 'Thanks — noted. Tell me in the thread what was missing and I’ll try again.',
        })
        .catch(() => {});
    }
  });

  // The Stop button on the status message (shown where Slack's native status is refused).
  app.action(CANCEL_ACTION_ID, async ({ ack, action, body, client }) => {
    await ack();
    const runId = parseCancelValue((action as { value?: string }).value);
    if (runId === undefined) return;
    const outcome = await requestCancel(deps.db, runId);
    deps.logger.info('cancel requested', { runId, by: body.user.id, via: 'button', outcome });
    const channel = (body as { channel?: { id: string } }).channel?.id;
    const threadTs = (body as { message?: { thread_ts?: string } }).message?.thread_ts;
    if (channel && outcome === 'finished') {
      await client.chat.postEphemeral({ channel, user: body.user.id, thread_ts: threadTs, text: 'That answer had already finished.' }).catch(() => {});
    }
  });

  app.event('reaction_added', async ({ event }) => {
    if (!CANCEL_REACTIONS.has(event.reaction) || event.item.type !== 'message') return;
    const run = await findActiveRunByMessage(deps.db, event.item.channel, event.item.ts);
    if (!run) return;
    const outcome = await requestCancel(deps.db, run.id);
    deps.logger.info('cancel requested', { runId: run.id, by: event.user, via: `:${event.reaction}:`, outcome });
  });
}
