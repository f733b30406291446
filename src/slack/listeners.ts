import type { WebClient } from '@slack/web-api';
import type { BotIdentity } from '../conversation';
import type { RunRequests } from '../runs/run-requests';
import type { SkillSummary } from '../skills/types';
import { formatSkillList } from '../skills';
import { forgetRefusedQuestion, postRecordedQuestion, recordNewQuestion, type QuestionDependencies } from './ask-on-behalf';
import { decideTrigger } from './decide-trigger';
import { formatToolList, type ToolOverview } from './format-tool-list';
import { FEEDBACK_ACTION_ID, parseFeedbackValue } from './feedback-block';
import { CANCEL_ACTION_ID, parseCancelValue } from './cancel-button';
import {
  isMessageDeleted,
  isPersonMessage,
  type AskCommandPayload,
  type BlockActionPayload,
  type BlockActionsPayload,
  type EventEnvelopePayload,
  type SlackEventPayloads,
} from './payload-schemas';

/** `/ask` questions go through ask-on-behalf.ts (recorded, posted, admitted): its dependencies are the listeners' too. */
export interface ListenerDependencies extends QuestionDependencies {
  bot: BotIdentity;
  /** Stops a run, finds the one working on a message, keeps feedback on an answer (runs/run-requests.ts). */
  runs: RunRequests;
  /** What goes when Slack deletes a message or a file. */
  deletions: SlackDeletions;
  /** The channel's "reply without mention" setting (its own, or the workspace default). */
  replyWithoutMention: (teamId: string | undefined, channelId: string) => Promise<boolean>;
  /** `/ask <word>` handled elsewhere (e.g. `settings` → the settings form), by word. */
  subcommands?: Record<string, (command: SlashCommandArgs) => Promise<void>>;
  skills: () => SkillSummary[];
  /** The tools offered in a channel and the state of each tool server, for `/ask tools`. */
  tools: (channelId: string) => ToolOverview;
}

/**
 * Deleted in Slack: what threadwise derived from it goes too — a message's cached copy, its thread's summary and
 * its files; a file's extracted text and the threads' references to it. The composition root wires the store in.
 */
export interface SlackDeletions {
  messageDeleted(channelId: string, ts: string, slackFileIds: readonly string[]): Promise<{ files: number }>;
  fileDeleted(slackFileId: string): Promise<Record<string, number>>;
}

/** Reactions that stop a running answer when put on the question (or the bot's status message). */
const CANCEL_REACTIONS = new Set(['x', 'octagonal_sign', 'no_entry', 'stop_sign']);

const ASK_USAGE =
  'Ask me anything: `/ask <your question>` — I’ll post your question here and answer in its thread, where you can follow up. `/ask skills` lists what I know how to format (Jira, Notion, Slack…); `/ask tools` lists the tools I can use here; `/ask settings` changes how I behave in this channel; `/ask tasks` lists your scheduled tasks. You can also @mention me in any thread.';

/** The events the listeners handle. */
type ListenedEvent = 'app_mention' | 'message' | 'file_deleted' | 'reaction_added';

/** An event's listener arguments: the event as validated (payload-schemas.ts) and the envelope it came in. */
interface EventArgs<Name extends keyof SlackEventPayloads> {
  event: SlackEventPayloads[Name];
  body: Pick<EventEnvelopePayload, 'event_id' | 'team_id'>;
  /** `deliveryId`: the recorded delivery it came in (the receiver's customProperties), when recorded. */
  context: { deliveryId?: string };
}

export interface SlashCommandArgs {
  /** The fields of `/ask` the listeners read, as validated (and the trigger a form opens with). */
  command: Pick<AskCommandPayload, 'text' | 'user_id' | 'channel_id' | 'team_id'> & { trigger_id?: string };
  ack(response?: { response_type: 'ephemeral'; text: string }): Promise<void>;
  respond(message: { response_type: 'ephemeral' | 'in_channel'; text: string }): Promise<unknown>;
  client: WebClient;
}

export interface BlockActionArgs {
  ack(): Promise<void>;
  action: BlockActionPayload;
  body: BlockActionsPayload;
  client: WebClient;
}

/**
 * The part of Bolt's App the listeners register on, by shape: only the composition root builds Bolt's App, and
 * hands it in here. Payloads arrive as validated at the edge (app/validated-payloads.ts), typed by their schemas.
 */
export interface SlackListenerHost {
  event<Name extends ListenedEvent>(name: Name, listener: (args: EventArgs<Name>) => Promise<void>): unknown;
  command(name: '/ask', listener: (args: SlashCommandArgs) => Promise<void>): unknown;
  action(actionId: string, listener: (args: BlockActionArgs) => Promise<void>): unknown;
}

export function registerListeners(app: SlackListenerHost, deps: ListenerDependencies): void {
  const onMessage = async ({ event, body: envelope, context }: EventArgs<'app_mention' | 'message'>) => {
    if (isMessageDeleted(event)) {
      const fileIds = (event.previous_message?.files ?? []).map((file) => file.id);
      const removed = await deps.deletions.messageDeleted(event.channel, event.deleted_ts, fileIds);
      deps.logger.info('a message was deleted in Slack; removed what was derived from it', { channel: event.channel, ts: event.deleted_ts, ...removed });
      return;
    }
    if (event.type === 'message' && !isPersonMessage(event)) return; // edits, joins, bot posts…
    const trigger = decideTrigger(event, deps.bot, true);
    if (!trigger) return;
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
    const removed = await deps.deletions.fileDeleted(event.file_id);
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
    let pending: Awaited<ReturnType<typeof recordNewQuestion>>;
    try {
      pending = await recordNewQuestion(deps, { channel: command.channel_id, userId: command.user_id, teamId: command.team_id || undefined, question, engages: true });
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
      const code = await forgetRefusedQuestion(deps, pending, error);
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
    const parsed = parseFeedbackValue(action.value ?? '');
    if (!parsed) return;
    const user = body.user.id;
    const channel = body.channel?.id;
    const threadTs = body.message?.thread_ts;
    try {
      await deps.runs.saveFeedback(parsed.runId, user, parsed.value);
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
    const runId = parseCancelValue(action.value);
    if (runId === undefined) return;
    const outcome = await deps.runs.cancel(runId);
    deps.logger.info('cancel requested', { runId, by: body.user.id, via: 'button', outcome });
    const channel = body.channel?.id;
    const threadTs = body.message?.thread_ts;
    if (channel && outcome === 'finished') {
      await client.chat.postEphemeral({ channel, user: body.user.id, thread_ts: threadTs, text: 'That answer had already finished.' }).catch(() => {});
    }
  });

  app.event('reaction_added', async ({ event }) => {
    if (!CANCEL_REACTIONS.has(event.reaction) || event.item.type !== 'message') return;
    const runId = await deps.runs.activeRunOn(event.item.channel, event.item.ts);
    if (runId === undefined) return;
    const outcome = await deps.runs.cancel(runId);
    deps.logger.info('cancel requested', { runId, by: event.user, via: `:${event.reaction}:`, outcome });
  });
}
