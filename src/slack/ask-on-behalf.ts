/**
 * Questions someone asks without writing a message where the answer goes — `/ask`, the Ask threadwise shortcuts, a
 * reaction trigger: the question is posted in the thread as "@Ana asked: …", tagged with its asker, and admitted like
 * any message — so the run reads it as theirs, under their access and rate limit, and the thread shows who asked.
 *
 * Each is recorded (pending_questions) before it is posted and before Slack hears back, so that no acknowledged
 * question is lost: its run is written in the transaction that settles the record, and what a dead process left
 * is finished by the next start (recoverQuestions) — found by its question_id metadata if it was posted, else
 * posted — and admitted once.
 */
import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import { QUESTION_EVENT } from '../conversation';
import { slackErrorCode, ThreadwiseError } from '../core/errors';
import type { Logger } from '../logging/logger';
import type { Intake } from '../runs/intake';
import { questionLine } from '../runs/trigger';
import type { Database } from '../store/database';
import { forgetQuestion, notePostedQuestion, recordQuestion, type NewPendingQuestion, type PendingQuestion } from '../store/delivery-store';
import { releaseReactionTrigger } from '../store/reaction-trigger-store';

export interface QuestionDependencies {
  db: Database;
  intake: Intake;
  logger: Logger;
  /** This process, as the owner of the questions it records. */
  replicaId: string;
}

/** A question as recorded, before it is posted. */
export type RecordedQuestion = Omit<PendingQuestion, 'createdAt' | 'posted'>;

export interface AskOnBehalf {
  /** Where to post: a channel (with threadTs: in that thread; without: a new thread) or a user id (their DM with the bot). */
  channel: string;
  threadTs?: string;
  userId: string;
  teamId?: string;
  question: string;
  /** How it was asked, for the posted line: "with :memo:", "via the shortcut". */
  via?: string;
  /** Follow-ups in the thread need no mention (a DM, or a thread the question starts). */
  engages: boolean;
}

export interface Landed {
  channelId: string;
  threadTs: string;
  ts: string;
}

/** A new question's record, owned by this process. */
export function newQuestion(deps: Pick<QuestionDependencies, 'replicaId'>, ask: AskOnBehalf): NewPendingQuestion {
  return {
    id: randomUUID(),
    receivedBy: deps.replicaId,
    channelId: ask.channel,
    userId: ask.userId,
    ...(ask.teamId ? { teamId: ask.teamId } : {}),
    question: ask.question,
    ...(ask.threadTs ? { threadTs: ask.threadTs } : {}),
    ...(ask.via ? { via: ask.via } : {}),
    engages: ask.engages,
  };
}

/**
 * Records a new question before anything is said to Slack: from here on a crash does not lose it (recoverQuestions
 * finishes it). Throws QuestionNotRecorded when the database did not take it.
 */
export async function recordNewQuestion(deps: Pick<QuestionDependencies, 'db' | 'replicaId'>, ask: AskOnBehalf): Promise<NewPendingQuestion> {
  const question = newQuestion(deps, ask);
  try {
    await recordQuestion(deps.db, question);
  } catch (error) {
    throw new QuestionNotRecorded(question, error);
  }
  return question;
}

/**
 * Records the question, then posts and admits it; returns where it landed. Throws QuestionNotRecorded when the
 * database did not take it (nothing was posted), or Slack's error when the post failed (the record is then
 * forgotten: the caller tells the asker, who still has their question).
 */
export async function askOnBehalf(client: WebClient, deps: QuestionDependencies, ask: AskOnBehalf): Promise<Landed> {
  const question = await recordNewQuestion(deps, ask);
  try {
    return await postRecordedQuestion(client, deps, question);
  } catch (error) {
    await forgetQuestion(deps.db, question.id).catch(() => {});
    throw error;
  }
}

export class QuestionNotRecorded extends ThreadwiseError<'question_not_recorded'> {
  override readonly name = 'QuestionNotRecorded';
  constructor(question: Pick<RecordedQuestion, 'channelId'>, cause: unknown) {
    super('question_not_recorded', `could not record a question for ${question.channelId}: the database did not answer`, {
      cause,
      context: { channel: question.channelId },
    });
  }
}

/** Posts a recorded question (its id in the metadata, so that a recovery can find it) and admits it. */
export async function postRecordedQuestion(client: WebClient, deps: QuestionDependencies, question: RecordedQuestion): Promise<Landed> {
  const posted = await client.chat.postMessage({
    channel: question.channelId,
    ...(question.threadTs ? { thread_ts: question.threadTs } : {}),
    text: `<@${question.userId}> asked${question.via ? ` ${question.via}` : ''}: ${question.question}`,
    metadata: { event_type: QUESTION_EVENT, event_payload: { user_id: question.userId, question: question.question, question_id: question.id } },
    unfurl_links: false,
  });
  // Posting to a user id lands in their DM with the bot; Slack answers with that DM's channel id.
  const landed = { channelId: posted.channel ?? question.channelId, ts: posted.ts! };
  admitRecordedQuestion(deps.intake, question, landed);
  // Where it landed, for a recovery that cannot search (a DM has no id until now). Not awaited: the admission settles
  // the record anyway, and a failure here only means a recovery searches (or, in a DM, posts again).
  void notePostedQuestion(deps.db, question.id, landed).catch((error) =>
    deps.logger.debug('could not note where a question was posted', { channel: landed.channelId, questionId: question.id, error }),
  );
  return { ...landed, threadTs: question.threadTs ?? landed.ts };
}

function admitRecordedQuestion(intake: Intake, question: RecordedQuestion, landed: { channelId: string; ts: string }): void {
  intake.submit({
    questionId: question.id,
    trigger: {
      channelId: landed.channelId,
      threadTs: question.threadTs ?? landed.ts,
      messageTs: landed.ts,
      userId: question.userId,
      teamId: question.teamId,
      engages: question.engages,
      needsEngagedThread: false,
      hasFiles: false,
      question: questionLine(question.question),
    },
  });
}

/**
 * Forgets a question Slack refused to post (with an error code: the bot left the channel, the channel is gone —
 * asking again will not help), giving back a reaction trigger's claim so that the next reaction may try again.
 * Returns Slack's code; without one (no answer from Slack) the question is kept for a recovery.
 */
export async function forgetRefusedQuestion({ db }: Pick<QuestionDependencies, 'db'>, question: RecordedQuestion, error: unknown): Promise<string | undefined> {
  const code = slackErrorCode(error);
  if (!code) return undefined;
  await forgetQuestion(db, question.id).catch(() => {});
  if (question.reaction) {
    await releaseReactionTrigger(db, { channelId: question.channelId, messageTs: question.reaction.messageTs, reaction: question.reaction.name }).catch(() => {});
  }
  return code;
}

/**
 * The message a question was posted as: where it was noted, or found by its question_id metadata — in its thread,
 * or (a question that starts a thread) in the channel, newest first, a few pages at most, stopping at messages from
 * well before it was recorded. A DM whose post was not noted cannot be searched without its id: undefined.
 */
async function findPostedQuestion(client: WebClient, question: PendingQuestion): Promise<{ channelId: string; ts: string } | undefined> {
  if (question.posted) return question.posted;
  if (/^[UW]/.test(question.channelId)) return undefined;
  const isIt = (message: { ts?: string; metadata?: { event_payload?: unknown } }) =>
    (message.metadata?.event_payload as { question_id?: unknown } | undefined)?.question_id === question.id && Boolean(message.ts);
  const before = question.createdAt.getTime() / 1000 - 60;
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const listed = question.threadTs
      ? await client.conversations.replies({ channel: question.channelId, ts: question.threadTs, include_all_metadata: true, limit: 200, cursor })
      : await client.conversations.history({ channel: question.channelId, include_all_metadata: true, limit: 200, cursor });
    const messages = listed.messages ?? [];
    const found = messages.find(isIt);
    if (found) return { channelId: question.channelId, ts: found.ts! };
    cursor = listed.response_metadata?.next_cursor || undefined;
    // A thread is listed oldest first (read to its end); a channel newest first (stop once past the question's time).
    if (!cursor || (!question.threadTs && Number(messages.at(-1)?.ts ?? 0) < before)) return undefined;
  }
  return undefined;
}

/**
 * Finishes questions whose process died between recording and admitting them: one found posted is admitted as it
 * is; one never posted is posted now. Either way once: the (channel, ts) claim dedupes a question admitted twice.
 */
export async function recoverQuestions(client: WebClient, deps: QuestionDependencies, questions: PendingQuestion[]): Promise<void> {
  for (const question of questions) {
    const where = { channel: question.channelId, threadTs: question.threadTs, questionId: question.id };
    try {
      const found = await findPostedQuestion(client, question);
      if (found) admitRecordedQuestion(deps.intake, question, found);
      else await postRecordedQuestion(client, deps, question);
      deps.logger.info('picked up a question its process left unfinished', { ...where, posted: !found });
    } catch (error) {
      const code = await forgetRefusedQuestion(deps, question, error);
      if (code) deps.logger.warn('gave up an unfinished question: Slack refused it', { ...where, code });
      else deps.logger.warn('could not pick up an unfinished question; trying again later', { ...where, error });
    }
  }
}
