/**
 * Models without native tool calling: AGENT_STRATEGY=auto falls back to the ReAct text protocol when the endpoint
 * rejects `tools` and remembers it; AGENT_STRATEGY=react uses it from the start. The loop is the same either way.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChatModel } from '../../src/app/create-chat-model';
import { parseReActOutput } from '../../src/agent/react-chat-model';
import { runAgentTurn } from '../../src/agent/run-agent-turn';
import type { ToolSpec } from '../../src/core/chat';
import { createLogger } from '../../src/logging/logger';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { lookupTool, loopInput } from './loop-fixtures';

let fake: FakeOpenAI;
const logs: string[] = [];
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-react-test' });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  logs.length = 0;
});

function modelFor(strategy: 'auto' | 'function_calling' | 'react') {
  return createChatModel(
    { apiKey: 'sk-react-test', baseUrl: fake.url, name: 'llama3.2', vision: false, strategy, contextWindow: 8_000, timeoutMs: 10_000 },
    createLogger({ level: 'warn', write: (line) => logs.push(line) }),
    { retry: { sleep: async () => {} } },
  );
}

const messagesOf = (request: { messages: unknown[] }) => request.messages as Array<{ role: string; content: string }>;

describe('AGENT_STRATEGY=auto with an endpoint that rejects tools', () => {
  it('drives the model through Thought / Action / Observation to a correct tool call and a final answer', async () => {
    fake.rejectTools = true;
    const { tool, calls } = lookupTool({ Q3: '4.2 M€' });
    fake.enqueue(
      { text: 'Thought: I need the Q3 figure.\nAction: lookup\nAction Input: {"key": "Q3"}' },
      { text: 'Thought: I can answer now.\nFinal Answer: Revenue in Q3 was 4.2 M€.' },
    );
    const model = modelFor('auto');
    const { input, events } = loopInput({ model, tools: [tool], stream: true });

    const result = await runAgentTurn(input);

    expect(calls).toEqual([{ key: 'Q3' }]);
    expect(result.answer).toBe('Revenue in Q3 was 4.2 M€.');
    expect(model.strategy()).toBe('react');
    // One rejected request with tools, then two ReAct requests without.
    expect(fake.outcomes.map((o) => o.kind)).toEqual(['rejected', 'reply', 'reply']);
    expect(fake.requests.slice(1).every((r) => r.tools === undefined && JSON.stringify(r.stop) === '["\\nObservation:"]')).toBe(true);

    const [system, ...rest] = messagesOf(fake.requests[1]!);
    expect(system!.role).toBe('system');
    expect(system!.content).toContain('You are a careful assistant.');
    expect(system!.content).toContain('- lookup: Looks up a figure by key.');
    expect(rest.every((m) => m.role !== 'system')).toBe(true);

    const second = messagesOf(fake.requests[2]!);
    expect(second.at(-2)).toEqual({ role: 'assistant', content: 'Thought: I need the Q3 figure.\nAction: lookup\nAction Input: {"key": "Q3"}' });
    expect(second.at(-1)).toEqual({ role: 'user', content: 'Observation: 4.2 M€' });
    // Only the answer streams, never the Thought or the Action.
    expect(events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('')).toBe('Revenue in Q3 was 4.2 M€.');
  });

  it('remembers the switch: the next answer goes straight to ReAct', async () => {
    fake.rejectTools = true;
    const model = modelFor('auto');
    fake.enqueue({ text: 'Final Answer: first' }, { text: 'Final Answer: second' });
    await model.complete({ messages: [{ role: 'user', content: 'one' }], tools: [{ name: 'lookup', description: 'd', parameters: { type: 'object', properties: {} } }] });
    await model.complete({ messages: [{ role: 'user', content: 'two' }], tools: [{ name: 'lookup', description: 'd', parameters: { type: 'object', properties: {} } }] });
    expect(fake.outcomes.map((o) => o.kind)).toEqual(['rejected', 'reply', 'reply']);
    expect(logs.filter((line) => line.includes('switching to the ReAct text protocol'))).toHaveLength(1);
  });
});

describe('AGENT_STRATEGY=function_calling', () => {
  it('does not fall back: the refusal reaches the caller', async () => {
    fake.rejectTools = true;
    const model = modelFor('function_calling');
    const failure = await model
      .complete({ messages: [{ role: 'user', content: 'one' }], tools: [{ name: 'lookup', description: 'd', parameters: { type: 'object', properties: {} } }] })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'ModelError', kind: 'tools_unsupported' });
    expect(model.strategy()).toBe('function_calling');
  });
});

describe('AGENT_STRATEGY=react on the last iteration', () => {
  it('tells the model to answer without tools', async () => {
    const { tool } = lookupTool({ Q3: '4.2 M€' });
    fake.enqueue({ text: 'Action: lookup\nAction Input: Q3' }, { text: 'Q3 was 4.2 M€.' });
    const { input } = loopInput({ model: modelFor('react'), tools: [tool] });
    input.limits.maxIterations = 2;

    const result = await runAgentTurn(input);

    expect(result).toMatchObject({ answer: 'Q3 was 4.2 M€.', stop: 'iteration_cap' });
    expect(fake.requests[1]!.stop).toBeUndefined();
    expect(messagesOf(fake.requests[1]!)[0]!.content).toContain('Do not use any tools now.');
  });
});

describe('parsing what a model writes', () => {
  const tools: ToolSpec[] = [
    { name: 'load_file', description: 'Loads a file.', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    { name: 'search_file', description: 'Searches.', parameters: { type: 'object', properties: { id: { type: 'string' }, query: { type: 'string' } }, required: ['id', 'query'] } },
  ];

  it.each([
    ['the plain protocol', 'Thought: read it\nAction: load_file\nAction Input: {"id": "F1"}', 'load_file', '{"id": "F1"}'],
    ['bold labels and a fenced input', '**Thought:** read it\n**Action:** `load_file`\n**Action Input:**\n```json\n{"id": "F1"}\n```', 'load_file', '{"id": "F1"}'],
    ['a bare value for a one-argument tool', 'Action: load_file\nAction Input: "F1"', 'load_file', '{"id":"F1"}'],
    ['the tool name in another case', 'Action: Load_File\nAction Input: {"id": "F1"}', 'load_file', '{"id": "F1"}'],
    ['a brace inside a string', 'Action: search_file\nAction Input: {"id": "F2", "query": "a } b"} and some chatter', 'search_file', '{"id": "F2", "query": "a } b"}'],
    ['a <think> block first', '<think>Maybe Final Answer: no.</think>\nThought: look\nAction: load_file\nAction Input: {"id": "F1"}', 'load_file', '{"id": "F1"}'],
    ['LangChain’s JSON blob', '```json\n{"action": "search_file", "action_input": {"id": "F2", "query": "Q3"}}\n```', 'search_file', '{"id":"F2","query":"Q3"}'],
    ['an imagined Observation and answer after the Action', 'Action: load_file\nAction Input: {"id": "F1"}\nObservation: it says 5\nFinal Answer: 5', 'load_file', '{"id": "F1"}'],
  ])('reads %s as a tool call', (_case, text, name, input) => {
    expect(parseReActOutput(text, tools)).toMatchObject({ kind: 'action', name, input });
  });

  it.each([
    ['a labelled answer', 'Thought: I know.\nFinal Answer: It is 5.', 'It is 5.'],
    ['plain text', 'It is 5.', 'It is 5.'],
    ['a thought with no label after it', 'Thought: It is 5.', 'It is 5.'],
    ['the JSON blob’s final answer', '{"action": "Final Answer", "action_input": "It is 5."}', 'It is 5.'],
  ])('reads %s as the answer', (_case, text, answer) => {
    expect(parseReActOutput(text, tools)).toEqual({ kind: 'answer', answer });
  });

  it('keeps the thought, without its label, as the text beside the call', () => {
    expect(parseReActOutput('**Thought:** read the report\n**Action:** load_file\n**Action Input:** {"id": "F1"}', tools)).toMatchObject({ thought: 'read the report' });
  });

  it('never reads an Action as a tool call when the tools are withdrawn', () => {
    expect(parseReActOutput('Action: load_file\nAction Input: {"id": "F1"}', [])).toMatchObject({ kind: 'answer' });
  });
});
