/**
 * The agent loop, driven through the real openai binding against the fake OpenAI server, with small tools of its
 * own: parallel tools and their timeouts, errors the model can act on, the repeated-call guard, the iteration and
 * time caps, cancelling, streaming events and the step records an operator reads later.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgentTurn } from '../../src/agent/run-agent-turn';
import { summarizeRunSteps } from '../../src/core/run-step';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { defineTool, fakeModel, lookupTool, loopInput, toolResultsIn } from './loop-fixtures';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-loop-test' });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('tool calls', () => {
  it('run in parallel, each with its own timeout; the one that hangs comes back as an error the model reads', async () => {
    let partnerArrived!: () => void;
    const arrival = new Promise<void>((resolve) => (partnerArrived = resolve));
    // waits_for_partner only finishes once partner has started: run one after the other, it would time out.
    const waitsForPartner = defineTool({
      name: 'waits_for_partner',
      description: 'Waits for partner.',
      parameters: z.object({}),
      describeProgress: () => 'waiting…',
      execute: async () => {
        await arrival;
        return 'partner arrived';
      },
    });
    const partner = defineTool({
      name: 'partner',
      description: 'Arrives.',
      parameters: z.object({}),
      describeProgress: () => 'arriving…',
      execute: async () => {
        partnerArrived();
        return 'here';
      },
    });
    const hangs = defineTool({
      name: 'hangs',
      description: 'Never answers and ignores its signal.',
      parameters: z.object({}),
      describeProgress: () => 'hanging…',
      execute: () => new Promise<string>(() => {}),
    });
    fake.enqueue(
      { toolCalls: [{ name: 'waits_for_partner', arguments: {} }, { name: 'partner', arguments: {} }, { name: 'hangs', arguments: {} }] },
      { text: 'Two of three tools answered.' },
    );
    const { input, events } = loopInput({ model: fakeModel(fake), tools: [waitsForPartner, partner, hangs] });
    input.limits.toolTimeoutMs = 300;

    const result = await runAgentTurn(input);

    expect(result.answer).toBe('Two of three tools answered.');
    const results = toolResultsIn(fake.requests[1]!);
    expect(results[0]).toBe('partner arrived');
    expect(results[1]).toBe('here');
    expect(results[2]).toMatch(/^Error: timed out after 300 ms/);
    expect(events.filter((e) => e.type === 'tools_started')).toEqual([
      { type: 'tools_started', calls: [{ name: 'waits_for_partner', progress: 'waiting…' }, { name: 'partner', progress: 'arriving…' }, { name: 'hangs', progress: 'hanging…' }] },
    ]);
  });

  it('turn an unknown tool, bad arguments and a failing tool into sentences the model can act on', async () => {
    const { tool } = lookupTool({ Q3: '4.2 M€' });
    fake.enqueue(
      {
        toolCalls: [
          { name: 'lookup_figures', arguments: { key: 'Q3' } },
          { name: 'lookup', arguments: { quarter: 3 } },
          { name: 'lookup', arguments: '{"key": "Q3",' },
          { name: 'lookup', arguments: { key: 'Q5' } },
        ],
      },
      { text: 'Done.' },
    );
    const { input } = loopInput({ model: fakeModel(fake), tools: [tool] });
    await runAgentTurn(input);

    const [unknown, wrongShape, brokenJson, failed] = toolResultsIn(fake.requests[1]!);
    expect(unknown).toBe('Error: there is no tool named "lookup_figures". Available tools: lookup.');
    expect(wrongShape).toMatch(/^Error: invalid arguments: key: /);
    expect(brokenJson).toMatch(/^Error: invalid arguments: not valid JSON/);
    expect(failed).toBe('Error: no figure for "Q5"; keys: Q3');
  });

  it('refuse the third identical call in a run and say so, whatever the order of the arguments', async () => {
    const twoArgs = defineTool({
      name: 'range',
      description: 'A range of a file.',
      parameters: z.object({ start: z.number(), stop: z.number() }),
      describeProgress: () => 'reading…',
      execute: async ({ start, stop }) => `text ${start}–${stop}`,
    });
    let runs = 0;
    const counted = { ...twoArgs, execute: async (args: { start: number; stop: number }) => (runs++, twoArgs.execute(args, undefined as never)) };
    fake.enqueue(
      { toolCalls: [{ name: 'range', arguments: { start: 0, stop: 10 } }] },
      { toolCalls: [{ name: 'range', arguments: { start: 0, stop: 10 } }] },
      { toolCalls: [{ name: 'range', arguments: '{"stop": 10, "start": 0}' }] },
      { toolCalls: [{ name: 'range', arguments: { start: 10, stop: 20 } }] },
      { text: 'Read it.' },
    );
    const { input, steps } = loopInput({ model: fakeModel(fake), tools: [counted] });
    const result = await runAgentTurn(input);

    expect(runs).toBe(3); // twice the same, then a different range
    expect(toolResultsIn(fake.requests[3]!).at(-1)).toBe(
      'Error: range was already called 2 times with exactly these arguments in this answer, so it was not run again. Use the earlier result, change the arguments, or answer with what you have.',
    );
    expect(toolResultsIn(fake.requests[4]!).at(-1)).toBe('text 10–20');
    expect(result.toolCalls.map((c) => c.error ?? 'ok')).toEqual(['ok', 'ok', 'repeated call refused', 'ok']);
    expect(steps.filter((s) => s.kind === 'tool').map((s) => s.arguments)).toEqual([
      { start: 0, stop: 10 },
      { start: 0, stop: 10 },
      { start: 0, stop: 10 },
      { start: 10, stop: 20 },
    ]);
  });
});

describe('caps', () => {
  it('withdraws the tools on the last iteration, so the model answers, and notes the limit', async () => {
    const { tool, calls } = lookupTool({ Q3: '4.2 M€' });
    // A model that would call tools for ever while it has them.
    fake.setDefault((request) => (request.tools ? { toolCalls: [{ name: 'lookup', arguments: { key: `Q${fake.requests.length}` } }] } : { text: 'Q3 was 4.2 M€; I could not check the rest.' }));
    const { input } = loopInput({ model: fakeModel(fake), tools: [{ ...tool, execute: async (args: { key: string }) => (calls.push(args), 'n/a') }] });
    input.limits.maxIterations = 3;

    const result = await runAgentTurn(input);

    expect(fake.requests).toHaveLength(3);
    expect(fake.requests.map((r) => Array.isArray(r.tools))).toEqual([true, true, false]);
    expect(calls).toHaveLength(2);
    expect(result).toMatchObject({
      stop: 'iteration_cap',
      answer: 'Q3 was 4.2 M€; I could not check the rest.',
      iterations: 3,
      note: 'I reached my limit of 3 steps, so this answer is based on what I had read by then.',
    });
  });

  it('past the time limit runs no more tools and answers with what it has, saying why', async () => {
    let clock = 1_000_000;
    const slowLookup = defineTool({
      name: 'lookup',
      description: 'Looks a figure up.',
      parameters: z.object({ key: z.string() }),
      describeProgress: ({ key }) => `looking up ${key}…`,
      execute: async () => {
        clock += 6 * 60_000; // this lookup "took" six minutes
        return '4.2 M€';
      },
    });
    fake.enqueue({ toolCalls: [{ name: 'lookup', arguments: { key: 'Q3' } }] }, { text: 'Q3 was 4.2 M€.' });
    const { input } = loopInput({ model: fakeModel(fake), tools: [slowLookup], now: () => clock });
    input.limits.deadline = clock + 5 * 60_000;
    input.limits.timeLimitMs = 5 * 60_000;

    const result = await runAgentTurn(input);

    expect(fake.requests[1]!.tools).toBeUndefined();
    expect(result).toMatchObject({
      stop: 'time_cap',
      answer: 'Q3 was 4.2 M€.',
      note: 'I stopped early: this took longer than my 5-minute limit, so this answer is based on what I had read by then.',
    });
  });

  it('stops a model call that runs into the deadline and asks again without tools', async () => {
    const { tool } = lookupTool({});
    fake.enqueue({ delayMs: 5_000, then: { text: 'too late' } }, { text: 'A short answer in time.' });
    const { input, steps } = loopInput({ model: fakeModel(fake), tools: [tool] });
    input.limits.deadline = Date.now() + 300;

    const result = await runAgentTurn(input);

    expect(result.stop).toBe('time_cap');
    expect(result.answer).toBe('A short answer in time.');
    expect(fake.requests[1]!.tools).toBeUndefined();
    expect(steps[0]).toMatchObject({ kind: 'model', error: 'stopped at the time limit' });
  });

  it('takes back what a call cut off by the deadline had streamed, and asks again without tools', async () => {
    const { tool } = lookupTool({});
    fake.enqueue({ text: `Half of this answer streams out. ${'More detail follows here. '.repeat(20)}`, stallAfterChunks: 4 }, { text: 'A short answer in time.' });
    const { input, events } = loopInput({ model: fakeModel(fake), tools: [tool], stream: true });
    input.limits.deadline = Date.now() + 300;

    const result = await runAgentTurn(input);

    expect(result).toMatchObject({ stop: 'time_cap', answer: 'A short answer in time.' });
    const shown = events.map((e) => (e.type === 'text_delta' ? e.delta : e.type === 'text_reset' ? '|reset|' : '')).join('');
    expect(shown).toMatch(/^Half of.*\|reset\|A short answer in time\.$/s);
    expect(fake.requests[1]!.tools).toBeUndefined();
  });
});

describe('an answer cut off by the model’s output limit', () => {
  it('is posted with a note saying so', async () => {
    fake.enqueue({ text: 'The three causes are: first, the', finishReason: 'length' });
    const { input } = loopInput({ model: fakeModel(fake), tools: [lookupTool({}).tool] });
    const result = await runAgentTurn(input);
    expect(result).toMatchObject({ stop: 'answered', answer: 'The three causes are: first, the', note: 'The answer was cut off at the model’s output limit.' });
  });
});

describe('cancelling', () => {
  it('stops a running tool and ends the turn as cancelled', async () => {
    const controller = new AbortController();
    const waits = defineTool({
      name: 'waits',
      description: 'Waits until cancelled.',
      parameters: z.object({}),
      describeProgress: () => 'waiting…',
      execute: (_args, context) => new Promise<string>((_, reject) => context.signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    fake.enqueue({ text: 'Let me wait.', toolCalls: [{ name: 'waits', arguments: {} }] });
    const { input, steps } = loopInput({
      model: fakeModel(fake),
      tools: [waits],
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'tools_started') controller.abort();
      },
    });

    const result = await runAgentTurn(input);

    expect(result.stop).toBe('cancelled');
    expect(fake.requests).toHaveLength(1);
    expect(steps.find((s) => s.kind === 'tool')).toMatchObject({ name: 'waits', error: 'stopped: the answer was cancelled' });
  });

  it('ends a turn cancelled while its answer streams as cancelled, not with the half written so far as the answer', async () => {
    // The SDK ends a stream whose signal aborts as if it were complete: what arrived must not pass for the answer.
    const controller = new AbortController();
    let streamed = '';
    fake.enqueue({ text: `Half of this answer streams out. ${'More detail follows here. '.repeat(20)}`, stallAfterChunks: 4 });
    const { input } = loopInput({
      model: fakeModel(fake),
      tools: [],
      stream: true,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type !== 'text_delta') return;
        streamed += event.delta;
        controller.abort();
      },
    });

    const result = await runAgentTurn(input);

    expect(streamed).toMatch(/^Half of/);
    expect(result.stop).toBe('cancelled');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('streaming', () => {
  it('passes the answer on as it is written, with a break after a preamble that led to tool calls', async () => {
    const { tool } = lookupTool({ Q3: '4.2 M€' });
    fake.enqueue(
      { text: 'Let me look that up.', toolCalls: [{ name: 'lookup', arguments: { key: 'Q3' } }] },
      { text: 'Revenue in Q3 was **4.2 M€**, up from 3.9 M€ in Q2.' },
    );
    const { input, events } = loopInput({ model: fakeModel(fake), tools: [tool], stream: true });

    const result = await runAgentTurn(input);

    const shown = events.map((e) => (e.type === 'text_delta' ? e.delta : e.type === 'text_break' ? '|' : '')).join('');
    expect(shown).toBe('Let me look that up.|Revenue in Q3 was **4.2 M€**, up from 3.9 M€ in Q2.');
    expect(result.answer).toBe('Revenue in Q3 was **4.2 M€**, up from 3.9 M€ in Q2.');
    expect(fake.requests.every((r) => r.stream === true)).toBe(true);
  });
});

describe('records', () => {
  it('record every model call with tokens and every tool call with its arguments and result size', async () => {
    const { tool } = lookupTool({ Q3: '4.2 M€', Q2: '3.9 M€' });
    fake.enqueue(
      {
        toolCalls: [
          { name: 'lookup', arguments: { key: 'Q3' } },
          { name: 'lookup', arguments: { key: 'Q2' } },
        ],
        usage: { prompt_tokens: 900, completion_tokens: 40 },
      },
      { text: 'Q3: 4.2 M€ (Q2: 3.9 M€).', usage: { prompt_tokens: 1_000, completion_tokens: 20 } },
    );
    const { input, steps } = loopInput({ model: fakeModel(fake), tools: [tool] });
    const result = await runAgentTurn(input);

    const before = Date.now();
    expect(steps.map(({ durationMs, startedAt, ...rest }) => (expect(durationMs).toBeGreaterThanOrEqual(0), expect(startedAt).toBeLessThanOrEqual(before), rest))).toEqual([
      { kind: 'model', name: 'gpt-4o-mini', iteration: 1, inputTokens: 900, outputTokens: 40 },
      { kind: 'tool', name: 'lookup', iteration: 1, arguments: { key: 'Q3' }, resultChars: '4.2 M€'.length, error: undefined, resultPreview: '4.2 M€' },
      { kind: 'tool', name: 'lookup', iteration: 1, arguments: { key: 'Q2' }, resultChars: '3.9 M€'.length, error: undefined, resultPreview: '3.9 M€' },
      { kind: 'model', name: 'gpt-4o-mini', iteration: 2, inputTokens: 1_000, outputTokens: 20 },
    ]);
    expect(result.usage).toEqual({ inputTokens: 1_900, outputTokens: 60 });
    expect(summarizeRunSteps(steps)).toEqual({ inputTokens: 1_900, outputTokens: 60, modelCalls: 2, toolCalls: 2, failedCalls: 0 });
  });

  it('count a sub-agent’s steps in the run’s totals', () => {
    const totals = summarizeRunSteps([
      { kind: 'model', name: 'm', iteration: 1, inputTokens: 100, outputTokens: 10, durationMs: 5 },
      { kind: 'tool', name: 'ask_file', iteration: 1, arguments: { id: 'F1' }, resultChars: 300, durationMs: 50 },
      { kind: 'subagent_model', name: 'm', iteration: 1, inputTokens: 5_000, outputTokens: 200, durationMs: 30 },
      { kind: 'subagent_tool', name: 'peek_file', iteration: 1, resultChars: 4_000, durationMs: 3, error: 'timed out' },
    ]);
    expect(totals).toEqual({ inputTokens: 5_100, outputTokens: 210, modelCalls: 2, toolCalls: 2, failedCalls: 1 });
  });
});
