/**
 * Beyond the thread, as one run sees it: who asks (and whether the conversation is theirs alone), the memories block
 * its first request carries, and its tool registry with the knowledge tools bound to the asker.
 */
import { renderMemoriesBlock, type ChannelInfo } from '../context';
import { isFromBot, QUESTION_EVENT, type BotIdentity, type SlackMessage } from '../conversation';
import { OPENAI_TOOL_LIMIT } from '../mcp/tool-names';
import type { RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import { withOwnTools, type ToolRegistry } from '../tools/registry';
import type { RunAsker, RunKnowledge, ThreadSource } from './seams';

/** Most tokens the memories block may take in a request. */
const MEMORIES_BLOCK_TOKENS = 600;

/** The asker of a run; undefined when the run names nobody (then it has no knowledge tools). */
export function askerOf(thread: ThreadRow, run: RunRow, messages: readonly SlackMessage[], bot: BotIdentity, channel: ChannelInfo): RunAsker | undefined {
  const userId = run.triggerUserId;
  if (!userId) return undefined;
  return {
    teamId: thread.teamId || run.teamId || '',
    channelId: thread.channelId,
    threadTs: thread.threadTs,
    userId,
    isPrivate: isPrivateToAsker(messages, bot, userId, channel),
  };
}

/**
 * Whether only the asker (and bots) speak in this conversation: a direct message with the bot, or a thread where no
 * other person has written so far — a question posted on someone else's behalf (/ask) counts as that person's.
 */
export function isPrivateToAsker(messages: readonly SlackMessage[], bot: BotIdentity, askerId: string, channel: Pick<ChannelInfo, 'isDirectMessage'>): boolean {
  if (channel.isDirectMessage) return true;
  return messages.every((message) => {
    if (isFromBot(message, bot)) {
      const askedFor = message.metadata?.event_type === QUESTION_EVENT ? message.metadata.event_payload?.user_id : undefined;
      return typeof askedFor !== 'string' || askedFor === askerId;
    }
    if (message.bot_id) return true; // another app, not a person
    return !message.user || message.user === askerId;
  });
}

/**
 * The memories block of a run's first request: the channel's memories, and the asker's personal ones only when the
 * conversation is theirs alone; authors named; '' when there is none (or no knowledge at all).
 */
export async function memoriesBlockFor(
  knowledge: RunKnowledge | undefined,
  asker: RunAsker | undefined,
  deps: { threads: Pick<ThreadSource, 'names'>; model: string },
  question: string,
): Promise<string> {
  if (!knowledge || !asker) return '';
  const memories = await knowledge.memories(asker, { includePersonal: asker.isPrivate });
  // Belt and braces: whatever the implementation returned, a shared conversation carries no personal memory.
  const carried = memories.filter((memory) => memory.scope === 'channel' || (asker.isPrivate && memory.authorId === asker.userId));
  if (carried.length === 0) return '';
  const names = await deps.threads.names([...new Set(carried.map((memory) => memory.authorId))]).catch(() => new Map<string, string>());
  return renderMemoriesBlock(
    carried.map((memory) => ({ ...memory, authorName: names.get(memory.authorId) })),
    { question, maxTokens: MEMORIES_BLOCK_TOKENS, model: deps.model },
  );
}

/** The channel's registry with the asker's knowledge tools first; over OpenAI's tool limit, the last ones give way. */
export function withKnowledgeTools(registry: ToolRegistry, knowledge: RunKnowledge | undefined, asker: RunAsker | undefined): ToolRegistry {
  if (!knowledge || !asker) return registry;
  return withOwnTools(registry, knowledge.tools(asker), { first: true, limit: OPENAI_TOOL_LIMIT });
}
