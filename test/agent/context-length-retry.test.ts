/**
 * A request the endpoint refuses as too long: the loop trims it — using the numbers in the refusal — and tries once
 * more; the system prompt and the question always survive; a second refusal reaches the caller as context_length.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/chat';
import { ModelError } from '../../src/core/chat';
import { contextLimitOf } from '../../src/app/openai';
import { runAgentTurn } from '../../src/agent/run-agent-turn';
import { HISTORY_LEFT_OUT_NOTE, trimRequestForRetry } from '../../src/context/trim-request-for-retry';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { fakeModel, lookupTool, loopInput } from './loop-fixtures';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-trim-test' });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const paragraph = (n: number) => `Meeting notes ${n}: ${'the budget discussion went on at length about travel and tooling. '.repeat(30)}`;

/** A thread with a long history: six earlier turns of ~2,000 characters each, then the question. */
function longThread(): ChatMessage[] {
  const history: ChatMessage[] = Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: paragraph(i + 1) }) as ChatMessage);
  return [{ role: 'system', content: 'You are a careful assistant.' }, ...history, { role: 'user', content: 'Ana: what did we decide about travel?' }];
}

const trim = (messages: ChatMessage[], refusal: { questionIndex: number; error: ModelError }) =>
  trimRequestForRetry(messages, { ...refusal, maxTokens: 100_000, model: 'gpt-4o-mini' }).messages;

describe('a context-length refusal', () => {
  it('is answered by a trimmed request that keeps the system prompt, the newest history and the question', async () => {
    fake.contextWindow = 2_000;
    fake.enqueue({ text: 'We decided to cap travel.' });
    const { tool } = lookupTool({});
    const { input, steps } = loopInput({ model: fakeModel(fake), tools: [tool], messages: longThread(), trimForRetry: trim });

    const result = await runAgentTurn(input);

    expect(result).toMatchObject({ answer: 'We decided to cap travel.', trimmed: true });
    expect(fake.outcomes.map((o) => o.kind)).toEqual(['rejected', 'reply']);
    const sent = fake.requests[1]!.messages as Array<{ role: string; content: string }>;
    expect(sent[0]).toEqual({ role: 'system', content: 'You are a careful assistant.' });
    expect(sent[1]).toEqual({ role: 'user', content: HISTORY_LEFT_OUT_NOTE });
    expect(sent.at(-1)!.content).toBe('Ana: what did we decide about travel?');
    expect(sent.at(-2)!.content).toBe(paragraph(6)); // the newest history stays
    expect(sent.length).toBeLessThan(fake.requests[0]!.messages.length);
    expect(steps[0]).toMatchObject({ kind: 'model', error: expect.stringContaining('context window') });
  });

  it('that comes again after trimming reaches the caller, after exactly one retry', async () => {
    fake.contextWindow = 20; // not even the question fits
    const { tool } = lookupTool({});
    const { input } = loopInput({ model: fakeModel(fake), tools: [tool], messages: longThread(), trimForRetry: trim });

    const failure = await runAgentTurn(input).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ kind: 'context_length' });
    expect(fake.requests).toHaveLength(2);
  });

  it('carries the endpoint’s limit and our request’s size, as OpenAI words them', () => {
    expect(
      contextLimitOf("This model's maximum context length is 8192 tokens. However, your messages resulted in 9,311 tokens. Please reduce the length of the messages."),
    ).toEqual({ maxTokens: 8_192, requestedTokens: 9_311 });
    expect(contextLimitOf('prompt is too long')).toBeUndefined();
  });
});

describe('trimming a run for the retry', () => {
  it('stubs old tool results before it drops history, and never separates a call from its result', () => {
    const big = 'row;'.repeat(3_000);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'System.' },
      { role: 'user', content: 'Ben: earlier question' },
      { role: 'assistant', content: 'Earlier answer.' },
      { role: 'user', content: 'Ana: sum column B' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'load_file', arguments: '{"id":"F1"}' }] },
      { role: 'tool', toolCallId: 'c1', content: big },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c2', name: 'peek_file', arguments: '{"id":"F1","start":0,"stop":100}' }] },
      { role: 'tool', toolCallId: 'c2', content: 'row;row;' },
    ];
    const error = new ModelError('context_length', 'too long', { contextLimit: { maxTokens: 4_000, requestedTokens: 4_200 } });

    const trimmed = trimRequestForRetry(messages, { questionIndex: 3, maxTokens: 100_000, model: 'gpt-4o-mini', error });

    expect(trimmed.droppedHistory).toBe(0);
    expect(trimmed.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect((trimmed.messages[5] as { content: string }).content).toMatch(/^\[earlier result of load_file/);
    expect(trimmed.tokens).toBeLessThanOrEqual(trimmed.targetTokens);
  });
});
