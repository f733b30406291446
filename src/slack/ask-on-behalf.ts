/**
 * A question someone asks without writing a message where the answer goes (`/ask`'s twin for shortcuts and reaction
 * triggers): the question is posted in the thread as "@Ana asked: …", tagged with its asker, and admitted like any
 * message — so the run reads it as theirs, under their access and rate limit, and the thread shows who asked.
 */
import type { WebClient } from '@slack/web-api';
import { QUESTION_EVENT } from '../conversation';
import type { Intake } from '../runs/intake';
import { questionLine } from '../runs/trigger';

export interface AskOnBehalf {
  /** Where to post: a channel (with threadTs: in that thread; without: a new thread) or a user id (their DM with the bot). */
  channel: string;
  threadTs?: string;
  userId: string;
  teamId?: string;
  question: string;
  /** How it was asked, for the posted line: "via :memo:", "via the Ask threadwise shortcut". */
  via?: string;
  /** Follow-ups in the thread need no mention (a DM, or a thread the question starts). */
  engages: boolean;
}

/** Posts the question and admits it; returns where it landed. Throws Slack's error when the post is refused. */
export async function askOnBehalf(client: WebClient, intake: Intake, ask: AskOnBehalf): Promise<{ channelId: string; threadTs: string; ts: string }> {
  const posted = await client.chat.postMessage({
    channel: ask.channel,
    ...(ask.threadTs ? { thread_ts: ask.threadTs } : {}),
    text: `<@${ask.userId}> asked${ask.via ? ` ${ask.via}` : ''}: ${ask.question}`,
    metadata: { event_type: QUESTION_EVENT, event_payload: { user_id: ask.userId, question: ask.question } },
    unfurl_links: false,
  });
  // Posting to a user id lands in their DM with the bot; Slack answers with that DM's channel id.
  const channelId = posted.channel ?? ask.channel;
  const ts = posted.ts!;
  const threadTs = ask.threadTs ?? ts;
  intake.submit({
    trigger: { channelId, threadTs, messageTs: ts, userId: ask.userId, teamId: ask.teamId, engages: ask.engages, needsEngagedThread: false, hasFiles: false, question: questionLine(ask.question) },
  });
  return { channelId, threadTs, ts };
}

/** Slack's error code of a failed Web API call, if it has one. */
export function slackErrorCode(error: unknown): string | undefined {
  return (error as { data?: { error?: string } }).data?.error;
}
