/**
 * Model failures through the real openai binding and the fake server: rate limits honour Retry-After, outages back
 * off, a broken stream is tried again with its partial text voided, and waits that cannot help are not made.
 * The sleeps are injected and recorded, so the waits are asserted as numbers, not measured.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/core/chat';
import { runAgentTurn } from '../../src/agent/run-agent-turn';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { fakeModel, lookupTool, loopInput, question } from './loop-fixtures';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-retry-test' });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe('a rate-limited model', () => {
  it('is asked again after exactly the Retry-After it sent, and the wait shows in events and steps', async () => {
    const { waits, sleep } = recordingSleep();
    fake.enqueue({ status: 429, retryAfter: 7 }, { text: 'Q3 was 4.2 M€.' });
    const { input, events, steps } = loopInput({ model: fakeModel(fake, { sleep }), tools: [lookupTool({}).tool] });

    const result = await runAgentTurn(input);

    expect(result.answer).toBe('Q3 was 4.2 M€.');
    expect(waits).toEqual([7_000]);
    expect(fake.requests).toHaveLength(2);
    expect(events).toContainEqual({ type: 'model_retry', attempt: 1, delayMs: 7_000, reason: 'rate_limited' });
    expect(steps.map((s) => [s.kind, s.error ?? 'ok'])).toEqual([
      ['model', 'The model (gpt-4o-mini) is rate-limiting requests. (tried again after 7 s)'],
      ['model', 'ok'],
    ]);
  });

  it('is not waited for when it asks for more than a minute: the caller hears at once', async () => {
    const { waits, sleep } = recordingSleep();
    fake.enqueue({ status: 429, retryAfter: 120 }, { text: 'never asked' });
    const model = fakeModel(fake, { sleep });

    const failure = await model.complete({ messages: question('hi') }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ kind: 'rate_limited', retryAfterMs: 120_000 });
    expect(waits).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('is not waited for past the run’s deadline', async () => {
    const { waits, sleep } = recordingSleep();
    fake.enqueue({ status: 429, retryAfter: 30 }, { text: 'never asked' });
    const model = fakeModel(fake, { sleep });

    const failure = await model.complete({ messages: question('hi'), retryDeadline: Date.now() + 10_000 }).catch((error: unknown) => error);

    expect(failure).toMatchObject({ kind: 'rate_limited' });
    expect(waits).toEqual([]);
  });
});

describe('an unavailable model', () => {
  it('is retried three times with doubling backoff, then fails with a kind the thread can explain', async () => {
    const { waits, sleep } = recordingSleep();
    fake.enqueue({ status: 503 }, { status: 500 }, { status: 502 }, { status: 500 }, { text: 'never asked' });
    const model = fakeModel(fake, { sleep, random: () => 0.5 });

    const failure = await model.complete({ messages: question('hi') }).catch((error: unknown) => error);

    expect(failure).toMatchObject({ name: 'ModelError', kind: 'unavailable', status: 500 });
    expect(waits).toEqual([500, 1_000, 2_000]);
    expect(fake.requests).toHaveLength(4);
  });

  it('that drops a stream half-way is asked again, and the half-written text is voided', async () => {
    const { waits, sleep } = recordingSleep();
    fake.enqueue({ text: 'Revenue in Q3 was four point two million euros.', disconnectAfterChunks: 4 }, { text: 'Revenue in Q3 was 4.2 M€.' });
    const { input, events } = loopInput({ model: fakeModel(fake, { sleep }), tools: [], stream: true });

    const result = await runAgentTurn(input);

    expect(result.answer).toBe('Revenue in Q3 was 4.2 M€.');
    expect(waits).toHaveLength(1);
    const kinds = events.map((e) => e.type).filter((type) => type !== 'text_delta' && type !== 'thinking');
    expect(kinds).toEqual(['text_reset', 'model_retry']);
    const afterReset = events.slice(events.findIndex((e) => e.type === 'model_retry'));
    expect(afterReset.map((e) => (e.type === 'text_delta' ? e.delta : '')).join('')).toBe('Revenue in Q3 was 4.2 M€.');
  });
});

describe('a refusal that waiting cannot fix', () => {
  it('is not retried', async () => {
    const { waits, sleep } = recordingSleep();
    fake.enqueue({ status: 401 }, { text: 'never asked' });
    const failure = await fakeModel(fake, { sleep })
      .complete({ messages: question('hi') })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: 'auth' });
    expect(waits).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });
});
