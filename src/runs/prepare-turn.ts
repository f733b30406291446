import { buildModelMessages, runBudget, type BuiltContext, type ContextBudget, type CurrentImage } from '../context';
import { buildThreadConversation, userIdsToResolve, type BotIdentity, type SlackMessage } from '../conversation';
import type { ConversationTurn } from '../core/conversation';
import type { SkillSummary } from '../skills/types';
import type { RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import { arrangeRunTurns } from './arrange-run-turns';
import type { RunFiles, RunLedger, ThreadFiles, ThreadSource } from './seams';
import type { RunAsker, RunKnowledge } from './seams';
import { askerOf, memoriesBlockFor } from './run-knowledge';
import { describeOverrides, type EffectiveChannelSettings } from '../config/channel-settings';

export interface PrepareTurnDependencies {
  bot: BotIdentity;
  threads: Pick<ThreadSource, 'names' | 'channel'>;
  files: ThreadFiles;
  ledger: Pick<RunLedger, 'earlierRuns' | 'rememberNames'>;
  skills: () => SkillSummary[];
  model: string;
  contextWindow: number;
  timeZone: string;
  now: () => number;
  /** Beyond the thread: memories for the request (and, in answerWithAgent, the knowledge tools); absent → none. */
  knowledge?: RunKnowledge;
}

export interface PreparedTurn {
  channelId: string;
  files: RunFiles;
  built: BuiltContext;
  budget: ContextBudget;
  /** Images attached to the current turn (described after the answer). */
  shown: { images: CurrentImage[]; notes: string[] };
  /** Who asks, for the knowledge tools; undefined when the run names nobody. */
  asker?: RunAsker;
}

/**
 * The thread as read → the first model request of this run: names resolved, files registered, this run's question
 * last (newer questions are the next run's), preloads and screenshots attached.
 */
export async function prepareTurn(
  deps: PrepareTurnDependencies,
  thread: ThreadRow,
  run: RunRow,
  messages: SlackMessage[],
  settings?: EffectiveChannelSettings,
  /** A scheduled task's occurrence: its request (tasks/occurrence-prompt.ts) instead of a message of the thread. */
  scheduled?: string,
): Promise<PreparedTurn | { nothing: string }> {
  const toResolve = userIdsToResolve(messages, deps.bot);
  if (scheduled !== undefined && run.triggerUserId && !toResolve.includes(run.triggerUserId)) toResolve.push(run.triggerUserId);
  const names = await deps.threads.names(toResolve);
  const files = await deps.files.open(thread.id, messages, names, settings && { preloadKb: settings.preloadKb, maxImagesPerTurn: settings.maxImagesPerTurn });
  const listed = files.access.list();
  const fileIdBySlackId = new Map(listed.filter((f) => f.slackFileId).map((f) => [f.slackFileId!, f.id]));
  const earlierRuns = await deps.ledger.earlierRuns(thread.id);
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
  const arranged = scheduled !== undefined ? withScheduledRequest(conversation.turns, run, scheduled, names, deps.now()) : arrangeRunTurns(conversation.turns, run);
  if (!arranged) return { nothing: 'the question was deleted' };
  const lastUser = arranged.findLastIndex((turn) => turn.role === 'user');
  if (lastUser < 0) return { nothing: 'the thread has no question' };
  conversation.turns = arranged.slice(0, lastUser + 1);

  const [preloads, channel, shown] = await Promise.all([
    files.preloads(),
    deps.threads.channel(thread.channelId),
    files.images(currentTurnFileIds(conversation.turns)),
  ]);
  // For the console (names, not ids); a cache, so a failed write costs nothing but a name.
  const named: Array<{ id: string; kind: 'user' | 'channel'; name: string }> = [...names].map(([id, name]) => ({ id, kind: 'user', name }));
  if (channel.name) named.push({ id: thread.channelId, kind: 'channel', name: channel.name });
  void deps.ledger.rememberNames?.(named).catch(() => {});
  const asker = askerOf(thread, run, messages, deps.bot, channel);
  const memoriesBlock = await memoriesBlockFor(deps.knowledge, asker, { threads: deps.threads, model: deps.model }, conversation.turns[lastUser]!.text);
  const budget = runBudget(deps.contextWindow);
  const built = buildModelMessages({
    botName: deps.bot.name,
    conversation,
    // Listed again: the preloads read the documents posted with the question, learning their pages.
    files: files.access.list(),
    preloads,
    skills: offeredSkills(deps.skills(), settings),
    now: new Date(deps.now()),
    timeZone: deps.timeZone,
    channel,
    currentImages: shown.images,
    imageNotes: shown.notes,
    budget,
    model: deps.model,
    channelSettings: settings && { extraInstructions: settings.extraInstructions, applied: describeOverrides(settings) },
    memoriesBlock,
  });
  return { channelId: thread.channelId, files, built, budget, shown, asker };
}

/** Files on the current question and on every message since the bot last answered. */
function currentTurnFileIds(turns: ConversationTurn[]): string[] {
  const ids: string[] = [];
  for (let i = turns.length - 1; i >= 0 && turns[i]!.role === 'user'; i--) ids.unshift(...turns[i]!.files.map((f) => f.id));
  return ids;
}

/** The skills the channel offers: all of them unless its settings name some. */
function offeredSkills(skills: SkillSummary[], settings: Pick<EffectiveChannelSettings, 'skills'> | undefined): SkillSummary[] {
  if (!settings?.skills) return skills;
  const offered = new Set(settings.skills);
  return skills.filter((skill) => offered.has(skill.name));
}

/**
 * An occurrence's turns: the whole thread as it stands (what it says before this run), then the task's request as
 * its owner's turn; messages folded into the run while it waited stay last, to be answered too.
 */
function withScheduledRequest(turns: ConversationTurn[], run: RunRow, request: string, names: ReadonlyMap<string, string>, now: number): ConversationTurn[] {
  const folded = new Set(run.foldedTs);
  const owner = run.triggerUserId ?? '';
  const turn: ConversationTurn = {
    role: 'user',
    speaker: names.get(owner) ?? 'a scheduled task',
    speakerId: owner,
    text: request,
    ts: `${Math.floor(now / 1000)}.000000`,
    edited: false,
    files: [],
  };
  return [...turns.filter((t) => !folded.has(t.ts)), turn, ...turns.filter((t) => folded.has(t.ts))];
}
