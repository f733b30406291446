/**
 * The model check at start (check-model.ts) against the fake model over HTTP, for each kind of server: OpenAI's
 * strict lookup, servers without GET /models/{model} (llama.cpp, vLLM), a base URL missing its /v1, a refused key,
 * a restricted key, an endpoint nobody listens on. And the same refused connection during a run: the error the
 * thread and the log get.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkModelAtStart, probeModel } from '../../src/app/check-model';
import { createOpenAIChatModel } from '../../src/app/openai';
import { StartupError } from '../../src/app/startup-error';
import { ModelError } from '../../src/core/chat';
import { describeFailure } from '../../src/runs/describe-failure';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { listen, sendJson } from '../fakes/http';
import { closedPort } from '../support/closed-port';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-good-key-0123456789' });
});
afterAll(() => fake?.close());

const endpoint = (fields: Partial<Parameters<typeof probeModel>[0]> = {}) => ({ baseUrl: fake.url, apiKey: 'sk-good-key-0123456789', model: 'gpt-4.1-mini', ...fields });

describe('probing the model endpoint', () => {
  it('a model the endpoint has: ok', async () => {
    fake.modelRoute = 'listed';
    expect(await probeModel(endpoint())).toEqual({ kind: 'ok' });
  });

  it("OpenAI's model_not_found: an unknown model", async () => {
    fake.modelRoute = 'listed';
    expect(await probeModel(endpoint({ model: 'gpt-9' }))).toEqual({ kind: 'unknown_model' });
  });

  it('no /models/{model} route (llama.cpp, vLLM): the list decides, and a model missing from it is only a note', async () => {
    fake.modelRoute = 'absent';
    expect(await probeModel(endpoint())).toEqual({ kind: 'ok' });
    const missing = await probeModel(endpoint({ model: 'my-local-model' }));
    expect(missing).toEqual({ kind: 'ok', note: expect.stringMatching(/^OPENAI_MODEL "my-local-model" is not among the models it lists \(gpt-4\.1-mini, gpt-4\.1, text-embedding-3-small\)/) });
  });

  it('a base URL without /v1: unchecked, with the hint', async () => {
    const origin = fake.url.replace(/\/v1$/, '');
    expect(await probeModel(endpoint({ baseUrl: origin }))).toEqual({ kind: 'unchecked', why: expect.stringContaining('usually ends in /v1') });
  });

  it('a refused key: refused_key with the status and code', async () => {
    expect(await probeModel(endpoint({ apiKey: 'sk-wrong-key-0123456789' }))).toEqual({ kind: 'refused_key', status: 401, code: 'invalid_api_key' });
  });

  it("a restricted key that may not read models (OpenAI's missing scope): unchecked, never refused", async () => {
    const restricted = await listen((_req, res) => sendJson(res, 403, { error: { message: 'You have insufficient permissions for this operation. Missing scopes: api.model.read.', type: 'invalid_request_error', code: null } }), 'restricted');
    try {
      expect(await probeModel(endpoint({ baseUrl: `${restricted.origin}/v1` }))).toMatchObject({ kind: 'unchecked' });
    } finally {
      await restricted.close();
    }
  });

  it('nobody listening: unreachable, saying why', async () => {
    expect(await probeModel(endpoint({ baseUrl: `http://127.0.0.1:${await closedPort()}/v1` }))).toEqual({ kind: 'unreachable', reason: 'connection refused, ECONNREFUSED' });
  });
});

describe('the check at start', () => {
  it('throws a StartupError naming OPENAI_API_KEY or OPENAI_MODEL; says one line for the rest', async () => {
    const said: string[] = [];
    const say = (sentence: string, level?: 'warn') => void said.push(`${level ?? 'info'}: ${sentence}`);
    await expect(checkModelAtStart(endpoint({ apiKey: 'sk-wrong-key-0123456789' }), { say })).rejects.toThrow(StartupError);
    fake.modelRoute = 'listed';
    await expect(checkModelAtStart(endpoint({ model: 'gpt-9' }), { say })).rejects.toThrow(/has no model "gpt-9" \(OPENAI_MODEL\)/);
    said.length = 0;
    const nowhere = `http://127.0.0.1:${await closedPort()}/v1`;
    const health = await checkModelAtStart(endpoint({ baseUrl: nowhere }), { say, now: () => Date.parse('2026-01-02T03:04:05Z') });
    try {
      expect(said).toEqual([
        `info: checking the model gpt-4.1-mini at ${nowhere}…`,
        `warn: could not reach the model at OPENAI_BASE_URL=${nowhere} (connection refused, ECONNREFUSED); starting anyway, and questions will fail until it answers.`,
      ]);
      expect(health.report()).toMatchObject({ state: 'unreachable', since: '2026-01-02T03:04:05.000Z' });
      health.record();
      expect(health.report()).toEqual({ state: 'ok', model: 'gpt-4.1-mini', url: nowhere });
    } finally {
      health.close();
    }
  });
});

describe('a refused connection during a run', () => {
  it("is 'unreachable', names OPENAI_BASE_URL and the URL, and the thread reads \"I can't reach the AI model\"", async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}/v1`;
    const model = createOpenAIChatModel({ apiKey: 'sk-x', baseUrl: nowhere, model: 'gpt-4.1-mini', timeoutMs: 5_000 });
    const failure = await model.complete({ messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ kind: 'unreachable', message: `The model endpoint at ${nowhere} (OPENAI_BASE_URL) could not be reached (connection refused, ECONNREFUSED).` });
    expect(describeFailure(failure)).toMatch(/^Sorry — I can’t reach the AI model right now/);
  });
});
