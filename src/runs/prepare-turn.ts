import { buildModelMessages, type BuiltContext, type ContextBudget, type CurrentImage } from '../context';
import { buildThreadConversation, userIdsToResolve, type ConversationTurn, type SlackMessage } from '../conversation';
import type { ThreadFileAccess } from '../tools/tool';
import { listThreadRuns, type RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import type { AnswerRunDependencies } from './answer-run';
import { arrangeRunTurns } from './arrange-run-turns';

/** Tokens kept free for the answer itself. */
const RESERVE_FOR_ANSWER = 4_000;

export interface PreparedTurn {
  access: ThreadFileAccess;
  built: BuiltContext;
  budget: ContextBudget;
  /** Images attached to the current turn (described after the answer). */
  shown: { images: CurrentImage[]; notes: string[] };
}

/**
 * The thread as read from Slack → the first model request of this run: names resolved, files registered, this
 * run's question last (newer questions are the next run's), preloads and screenshots attached.
 */
export async function prepareTurn(
  deps: AnswerRunDependencies,
  thread: ThreadRow,
  run: RunRow,
  messages: SlackMessage[],
): Promise<PreparedTurn | { nothing: string }> {
  const names = await deps.names(userIdsToResolve(messages, deps.bot));
  const files = await deps.files.register(thread.id, messages, names);
  const fileIdBySlackId = new Map(files.filter((f) => f.slackFileId).map((f) => [f.slackFileId!, f.id]));
  const earlierRuns = await listThreadRuns(deps.db, thread.id);
  const activityByAnswerTs = new Map(earlierRuns.filter((r) => r.activity && r.answerTs[0]).map((r) => [r.answerTs[0]!, r.activity!]));
  const conversation = buildThreadConversation({
    channelId: thread.channelId,
    threadTs: thread.threadTs,
    messages,
    bot: deps.bot,
    names,
    fileIdOf: (id) => fileIdBySlackId.get(id),
    activityByAnswerTs,
  });
  const arranged = arrangeRunTurns(conversation.turns, run);
  if (!arranged) return { nothing: 'the question was deleted' };
  const lastUser = arranged.findLastIndex((turn) => turn.role === 'user');
  if (lastUser < 0) return { nothing: 'the thread has no question' };
  conversation.turns = arranged.slice(0, lastUser + 1);

  const access = deps.files.access(thread.id, files);
  const [preloads, channel, shown] = await Promise.all([
    deps.files.preloads(access, files),
    deps.channel(thread.channelId),
    deps.files.currentImages?.(access, currentTurnFileIds(conversation.turns)) ?? { images: [], notes: [] },
  ]);
  const budget = { contextWindow: deps.settings.contextWindow, reserveForAnswer: RESERVE_FOR_ANSWER };
  const built = buildModelMessages({
    botName: deps.bot.name,
    conversation,
    files,
    preloads,
    skills: deps.skills.list(),
    now: new Date(deps.now()),
    timeZone: deps.settings.timeZone,
    channel,
    currentImages: shown.images,
    imageNotes: shown.notes,
    budget,
    model: deps.model.name,
  });
  return { access, built, budget, shown };
}

/** Files on the current question and on every message since the bot last answered. */
function currentTurnFileIds(turns: ConversationTurn[]): string[] {
  const ids: string[] = [];
  for (let i = turns.length - 1; i >= 0 && turns[i]!.role === 'user'; i--) ids.unshift(...turns[i]!.files.map((f) => f.id));
  return ids;
}
