import type { BotIdentity } from '../conversation';
import { questionLine, type Trigger } from '../runs/trigger';

export type { Trigger };

/** A message event as Bolt delivers it (app_mention or message), reduced to what the decision needs. */
export interface IncomingMessage {
  type: 'app_mention' | 'message';
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  team?: string;
  files?: Array<{ id: string }>;
}


/** Subtypes a person writes. Edits, deletions, joins and bot posts never trigger an answer. */
const HUMAN_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast', 'me_message']);

/**
 * Whether a message event could get an answer, and in which thread. Pure: whether the thread is engaged is
 * checked later against the store. Other bots never trigger an answer, so two bots cannot loop.
 */
export function decideTrigger(event: IncomingMessage, bot: BotIdentity, replyWithoutMention: boolean): Trigger | undefined {
  if (!event.user || event.bot_id || !HUMAN_SUBTYPES.has(event.subtype)) return undefined;
  if (event.user === bot.userId) return undefined;
  const threadTs = event.thread_ts ?? event.ts;
  const isDirectMessage = event.channel_type === 'im' || event.channel.startsWith('D');
  const mentionsBot = event.type === 'app_mention' || (event.text ?? '').includes(`<@${bot.userId}>`);
  const base = {
    channelId: event.channel,
    threadTs,
    messageTs: event.ts,
    userId: event.user,
    teamId: event.team,
    hasFiles: (event.files?.length ?? 0) > 0,
    question: questionLine(event.text),
  };
  if (isDirectMessage || mentionsBot) {
    // A mention in the middle of someone else's thread is answered, but does not make every later message a question.
    return { ...base, engages: isDirectMessage || threadTs === event.ts, needsEngagedThread: false };
  }
  // A plain message: only a follow-up inside a thread the bot was brought into.
  if (!replyWithoutMention || !event.thread_ts || event.thread_ts === event.ts) return undefined;
  return { ...base, engages: false, needsEngagedThread: true };
}
