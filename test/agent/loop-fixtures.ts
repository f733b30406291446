/**
 * Small pieces for driving the agent loop directly: tools written inline, a thread with no files, and the real
 * openai binding pointed at the fake OpenAI server.
 */
import { z } from 'zod';
import type { ChatMessage } from '../../src/core/chat';
import { createOpenAIChatModel } from '../../src/app/openai';
import { createRetryingChatModel, type RetryingOptions } from '../../src/agent/retrying-chat-model';
import type { AgentTurnInput } from '../../src/agent/run-agent-turn';
import type { RunStepRecord } from '../../src/core/run-step';
import type { AgentEvent } from '../../src/agent/agent-event';
import { createToolRegistry } from '../../src/tools/registry';
import type { Tool, SkillReader } from '../../src/tools/tool';
import type { ThreadFileAccess } from '../../src/files/thread-file-access';
import type { FakeOpenAI } from '../fakes/fake-openai';

export function defineTool<P>(tool: Tool<P>): Tool<P> {
  return tool;
}

/** A tool that answers from a table, counting its calls. */
export function lookupTool(table: Record<string, string>) {
  const calls: Array<{ key: string }> = [];
  const tool = defineTool({
    name: 'lookup',
    description: 'Looks up a figure by key. Returns the figure as text.',
    parameters: z.object({ key: z.string().describe('e.g. "Q3"') }),
    describeProgress: ({ key }) => `looking up ${key}…`,
    async execute(args) {
      calls.push(args);
      const value = table[args.key];
      if (value === undefined) throw new Error(`no figure for "${args.key}"; keys: ${Object.keys(table).join(', ')}`);
      return value;
    },
  });
  return { tool, calls };
}

const noFiles: ThreadFileAccess = {
  list: () => [],
  get: (id) => {
    throw new Error(`no file ${id} in this test thread`);
  },
  readText: async (id) => {
    throw new Error(`no file ${id} in this test thread`);
  },
  extract: async (id) => {
    throw new Error(`no file ${id} in this test thread`);
  },
  readBytes: async (id) => {
    throw new Error(`no file ${id} in this test thread`);
  },
  readImage: async (id) => {
    throw new Error(`no file ${id} in this test thread`);
  },
  search: async () => [],
};

const noSkills: SkillReader = {
  read: async (name) => {
    throw new Error(`no skill ${name} in this test`);
  },
};

export function fakeModel(fake: FakeOpenAI, retry: RetryingOptions = { sleep: async () => {} }) {
  return createRetryingChatModel(createOpenAIChatModel({ apiKey: fake.apiKey ?? 'sk-none', baseUrl: fake.url, model: 'gpt-4o-mini', timeoutMs: 10_000 }), retry);
}

export const question = (text: string): ChatMessage[] => [
  { role: 'system', content: 'You are a careful assistant.' },
  { role: 'user', content: text },
];

/** A loop input with generous limits; events and steps are collected for assertions. */
export function loopInput(overrides: Partial<AgentTurnInput> & Pick<AgentTurnInput, 'model'> & { tools: Tool[] }) {
  const events: AgentEvent[] = [];
  const steps: RunStepRecord[] = [];
  const { tools, ...rest } = overrides;
  const input: AgentTurnInput = {
    messages: question('What was revenue in Q3?'),
    registry: createToolRegistry(tools),
    resources: { files: noFiles, skills: noSkills },
    limits: { maxIterations: 10, toolTimeoutMs: 5_000, deadline: Date.now() + 60_000, contextWindow: 128_000 },
    now: Date.now,
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    recordStep: (step) => steps.push(step),
    ...rest,
  };
  return { input, events, steps };
}

/** The tool results the model was sent in a request, by tool_call_id order. */
export function toolResultsIn(request: { messages: unknown[] }): string[] {
  return (request.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'tool').map((m) => String(m.content));
}
