/**
 * Beyond the thread, as a run sees it: whether the conversation is the asker's alone (only then do their personal
 * memories go into the request), the memories block built from what the knowledge seam returns, and the knowledge
 * tools put before the channel's own.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { QUESTION_EVENT, type BotIdentity, type SlackMessage } from '../../src/conversation';
import { isPrivateToAsker, memoriesBlockFor, withKnowledgeTools } from '../../src/runs/run-knowledge';
import type { RunAsker, RunKnowledge, RunMemory } from '../../src/runs/seams';
import { createToolRegistry } from '../../src/tools/registry';
import type { Tool } from '../../src/tools/tool';

const bot: BotIdentity = { userId: 'U0BOT', botId: 'B0BOT', name: 'threadwise' };
const channel = { isDirectMessage: false };
const msg = (ts: string, fields: Partial<SlackMessage>): SlackMessage => ({ ts, text: 'hello', ...fields });

describe('a conversation private to the asker', () => {
  it('is a DM with the bot, whoever else is named in it', () => {
    expect(isPrivateToAsker([msg('1.1', { user: 'U0ANA' }), msg('1.2', { user: 'U0BEN' })], bot, 'U0ANA', { isDirectMessage: true })).toBe(true);
  });

  it('is a channel thread where only the asker, the bot and other apps wrote so far', () => {
    const thread = [msg('1.1', { user: 'U0ANA' }), msg('1.2', { user: 'U0BOT', bot_id: 'B0BOT' }), msg('1.3', { bot_id: 'B0JIRA' }), msg('1.4', { user: 'U0ANA' })];
    expect(isPrivateToAsker(thread, bot, 'U0ANA', channel)).toBe(true);
  });

  it('is not a thread where another person wrote, nor one holding a question asked on someone else\'s behalf', () => {
    expect(isPrivateToAsker([msg('1.1', { user: 'U0BEN' }), msg('1.2', { user: 'U0ANA' })], bot, 'U0ANA', channel)).toBe(false);
    const onBehalf = msg('1.1', { user: 'U0BOT', bot_id: 'B0BOT', metadata: { event_type: QUESTION_EVENT, event_payload: { user_id: 'U0BEN', question: 'hi' } } });
    expect(isPrivateToAsker([onBehalf, msg('1.2', { user: 'U0ANA' })], bot, 'U0ANA', channel)).toBe(false);
    const ownQuestion = { ...onBehalf, metadata: { event_type: QUESTION_EVENT, event_payload: { user_id: 'U0ANA', question: 'hi' } } };
    expect(isPrivateToAsker([ownQuestion], bot, 'U0ANA', channel)).toBe(true);
  });
});

describe('the memories block of a run', () => {
  const memories: RunMemory[] = [
    { id: 1, scope: 'channel', authorId: 'U0BEN', text: 'Payments on-call: +1 555 0100', createdAt: new Date('2026-11-20T10:00:00Z') },
    { id: 2, scope: 'personal', authorId: 'U0ANA', text: 'My badge number is 4711', createdAt: new Date('2026-11-21T10:00:00Z') },
  ];
  const asked: Array<{ includePersonal: boolean }> = [];
  const knowledge: RunKnowledge = {
    memories: async (_asker, options) => {
      asked.push(options);
      return memories; // returns personal ones even when not asked: the run drops them anyway
    },
    tools: () => [],
  };
  const threads = { names: async (ids: string[]) => new Map(ids.map((id) => [id, id === 'U0BEN' ? 'Ben' : 'Ana'])) };
  const asker = (isPrivate: boolean): RunAsker => ({ teamId: 'T1', channelId: 'C1', threadTs: '1.1', userId: 'U0ANA', isPrivate });

  it('carries the channel\'s memories with their authors, and the asker\'s own only when the conversation is theirs alone', async () => {
    const alone = await memoriesBlockFor(knowledge, asker(true), { threads, model: 'gpt-4o-mini' }, 'who is on call?');
    expect(alone).toContain('M1 | for this channel | Ben, 2026-11-20 | Payments on-call: +1 555 0100');
    expect(alone).toContain('M2 | for the asker only');
    expect(asked.at(-1)).toEqual({ includePersonal: true });

    const shared = await memoriesBlockFor(knowledge, asker(false), { threads, model: 'gpt-4o-mini' }, 'who is on call?');
    expect(shared).toContain('+1 555 0100');
    expect(shared).not.toContain('4711');
    expect(asked.at(-1)).toEqual({ includePersonal: false });
  });

  it('is empty without knowledge (the terminal) or without an asker', async () => {
    expect(await memoriesBlockFor(undefined, asker(true), { threads, model: 'gpt-4o-mini' }, 'q')).toBe('');
    expect(await memoriesBlockFor(knowledge, undefined, { threads, model: 'gpt-4o-mini' }, 'q')).toBe('');
  });
});

describe('the tools of a run', () => {
  const tool = (name: string): Tool => ({ name, description: name, parameters: z.object({}), describeProgress: () => name, execute: async () => name });
  const channelTools = createToolRegistry([tool('search_file'), tool('tracker__search')]);

  it('puts the asker\'s knowledge tools before the channel\'s, and leaves the registry alone without them', () => {
    const seen: RunAsker[] = [];
    const knowledge: RunKnowledge = { memories: async () => [], tools: (a) => (seen.push(a), [tool('search_messages'), tool('remember')]) };
    const asker: RunAsker = { teamId: 'T1', channelId: 'C1', threadTs: '1.1', userId: 'U0ANA', isPrivate: false };
    expect(withKnowledgeTools(channelTools, knowledge, asker).names()).toEqual(['search_messages', 'remember', 'search_file', 'tracker__search']);
    expect(seen).toEqual([asker]);
    expect(withKnowledgeTools(channelTools, undefined, asker)).toBe(channelTools);
    expect(withKnowledgeTools(channelTools, knowledge, undefined)).toBe(channelTools);
  });

  it('stays within OpenAI\'s 128 tools: the last of the channel\'s give way', () => {
    const many = createToolRegistry(Array.from({ length: 127 }, (_, i) => tool(`t${i}`)));
    const knowledge: RunKnowledge = { memories: async () => [], tools: () => ['search_messages', 'read_channel', 'remember', 'forget'].map(tool) };
    const names = withKnowledgeTools(many, knowledge, { teamId: 'T1', channelId: 'C1', threadTs: '1.1', userId: 'U', isPrivate: true }).names();
    expect(names).toHaveLength(128);
    expect(names.slice(0, 4)).toEqual(['search_messages', 'read_channel', 'remember', 'forget']);
    expect(names.at(-1)).toBe('t123');
  });
});
