import type { ConversationTurn, ThreadConversation } from '../core/conversation';
import { QUESTION_EVENT, STATUS_EVENT, type SlackMessage } from './slack-message';
import { mentionedUserIds, toReadableText } from './readable-text';

export interface BotIdentity {
  userId: string;
  botId?: string;
  name: string;
}

export interface ConversationInput {
  channelId: string;
  threadTs: string;
  /** Every message of the thread, any order (conversations.replies, all pages). */
  messages: SlackMessage[];
  bot: BotIdentity;
  /** Display names by user id (users.info, cached by the caller). */
  names: ReadonlyMap<string, string>;
  /** ThreadFile id for a Slack file id, once the registry knows the file. */
  fileIdOf: (slackFileId: string) => string | undefined;
  /** What each earlier answer read, by the ts of its first answer message. */
  activityByAnswerTs?: ReadonlyMap<string, string>;
}

/** Subtypes that are conversation; everything else (joins, topic changes, tombstones) is not. */
const SPOKEN_SUBTYPES = new Set([undefined, 'bot_message', 'file_share', 'thread_broadcast', 'me_message']);

/** A Slack thread → attributed turns in time order. Pure: names and file ids come in resolved. */
export function buildThreadConversation(input: ConversationInput): ThreadConversation {
  const nameOf = (id: string) => (id === input.bot.userId ? input.bot.name : input.names.get(id));
  const turns: ConversationTurn[] = [];
  const ordered = [...input.messages].sort((a, b) => compareTs(a.ts, b.ts));

  for (const message of ordered) {
    if (!SPOKEN_SUBTYPES.has(message.subtype)) continue;
    if (message.metadata?.event_type === STATUS_EVENT) continue;
    const files = (message.files ?? [])
      .map((file) => ({ id: input.fileIdOf(file.id), name: file.name ?? file.title ?? file.id }))
      .filter((file): file is { id: string; name: string } => file.id !== undefined);
    const text = toReadableText(message.text ?? '', nameOf).trim();
    if (!text && files.length === 0) continue;

    const askedFor = message.metadata?.event_type === QUESTION_EVENT ? message.metadata.event_payload?.user_id : undefined;
    const fromBot = isFromBot(message, input.bot);
    if (fromBot && typeof askedFor === 'string') {
      // A question posted by the bot on someone's behalf (/ask): that person's turn, in their words.
      const question = typeof message.metadata?.event_payload?.question === 'string' ? message.metadata.event_payload.question : text;
      turns.push(userTurn(message, askedFor, nameOf(askedFor) ?? askedFor, question, files));
    } else if (fromBot) {
      turns.push({
        role: 'assistant',
        speaker: input.bot.name,
        speakerId: input.bot.userId,
        text,
        ts: message.ts,
        edited: Boolean(message.edited),
        files,
        activity: input.activityByAnswerTs?.get(message.ts),
      });
    } else {
      const speakerId = message.user ?? message.bot_id ?? 'unknown';
      const speaker = message.user
        ? (nameOf(message.user) ?? message.username ?? message.user)
        : (message.bot_profile?.name ?? message.username ?? 'another bot');
      turns.push(userTurn(message, speakerId, speaker, text, files));
    }
  }
  return { channelId: input.channelId, threadTs: input.threadTs, turns };
}

function userTurn(message: SlackMessage, speakerId: string, speaker: string, text: string, files: ConversationTurn['files']): ConversationTurn {
  return { role: 'user', speaker, speakerId, text, ts: message.ts, edited: Boolean(message.edited), files };
}

export function isFromBot(message: SlackMessage, bot: BotIdentity): boolean {
  return message.user === bot.userId || (bot.botId !== undefined && message.bot_id === bot.botId);
}

/** User ids whose names the conversation needs: authors and mentions. */
export function userIdsToResolve(messages: SlackMessage[], bot: BotIdentity): string[] {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.user && message.user !== bot.userId) ids.add(message.user);
    for (const id of mentionedUserIds(message.text ?? '')) if (id !== bot.userId) ids.add(id);
    const askedFor = message.metadata?.event_payload?.user_id;
    if (typeof askedFor === 'string') ids.add(askedFor);
  }
  return [...ids];
}

/** Slack timestamps are "seconds.micros" strings; compare them as numbers without losing precision. */
export function compareTs(a: string, b: string): number {
  const [as, au = ''] = a.split('.');
  const [bs, bu = ''] = b.split('.');
  return Number(as) - Number(bs) || Number(au.padEnd(6, '0')) - Number(bu.padEnd(6, '0'));
}
