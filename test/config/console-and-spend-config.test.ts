/** CONSOLE_*, MODEL_PRICES, DAILY_LIMIT_* and OTEL_*: defaults, and one line naming the variable and the fix when wrong. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { DEFAULT_MODEL_PRICES } from '../../src/config/model-prices';
import { costOfTokens, formatUsd, priceOf } from '../../src/core/model-prices';

const minimal = { SLACK_BOT_TOKEN: 'xoxb-123-abc', SLACK_SIGNING_SECRET: 'secret', OPENAI_API_KEY: 'sk-test' };
const problems = (env: Record<string, string>) => {
  const result = loadConfig({ ...minimal, ...env });
  return result.ok ? [] : result.problems;
};

describe('console, prices, limits and traces in the environment', () => {
  it('default to no console, list prices, no limits and no traces', () => {
    const result = loadConfig(minimal);
    if (!result.ok) throw new Error(result.problems.join('; '));
    expect(result.config.console).toBeUndefined();
    expect(result.config.limits).toEqual({ dailyUserUsd: 0, dailyChannelUsd: 0 });
    expect(result.config.prices).toBe(DEFAULT_MODEL_PRICES);
    expect(result.config.tracing).toEqual({ endpoint: undefined, captureContent: false });
  });

  it('open the console on loopback without a token, and anywhere with one', () => {
    const open = loadConfig({ ...minimal, CONSOLE_PORT: '8080' });
    expect(open.ok && open.config.console).toEqual({ port: 8080, host: '127.0.0.1', token: undefined, trustProxy: false });
    expect(problems({ CONSOLE_PORT: '8080', CONSOLE_HOST: '::1' })).toEqual([]);
    expect(problems({ CONSOLE_PORT: '8080', CONSOLE_HOST: '10.0.0.5', CONSOLE_TOKEN: 'x'.repeat(32) })).toEqual([]);
  });

  it('refuse a reachable console without a token, a short token and a bad port, one line each', () => {
    expect(problems({ CONSOLE_PORT: '8080', CONSOLE_HOST: '0.0.0.0' })).toEqual([expect.stringMatching(/^CONSOLE_TOKEN is missing: the console would listen on 0\.0\.0\.0/)]);
    expect(problems({ CONSOLE_PORT: '8080', CONSOLE_TOKEN: 'short' })).toEqual([expect.stringContaining('CONSOLE_TOKEN must be at least 16 characters')]);
    expect(problems({ CONSOLE_PORT: 'eighty' })).toEqual([expect.stringContaining('CONSOLE_PORT must be a port number')]);
  });

  it('merge MODEL_PRICES over the defaults, and name what is wrong in it', () => {
    const result = loadConfig({ ...minimal, MODEL_PRICES: '{"llama3.1": {"input": 0, "output": 0}, "gpt-4o": {"input": 2, "output": 8}}' });
    if (!result.ok) throw new Error(result.problems.join('; '));
    expect(result.config.prices['llama3.1']).toEqual({ input: 0, output: 0 });
    expect(result.config.prices['gpt-4o']).toEqual({ input: 2, output: 8 });
    expect(result.config.prices['gpt-5-mini']).toEqual(DEFAULT_MODEL_PRICES['gpt-5-mini']);
    expect(problems({ MODEL_PRICES: '{gpt-4o: 1}' })).toEqual([expect.stringMatching(/^MODEL_PRICES is not valid JSON; set it to a JSON object/)]);
    expect(problems({ MODEL_PRICES: '{"gpt-4o": {"input": -1, "output": 2}}' })).toEqual([expect.stringMatching(/^MODEL_PRICES at gpt-4o\.input: /)]);
  });

  it('read limits in dollars', () => {
    const result = loadConfig({ ...minimal, DAILY_LIMIT_USER: '$2.50', DAILY_LIMIT_CHANNEL: '20' });
    expect(result.ok && result.config.limits).toEqual({ dailyUserUsd: 2.5, dailyChannelUsd: 20 });
    expect(problems({ DAILY_LIMIT_USER: '100k tokens' })).toEqual([expect.stringContaining('DAILY_LIMIT_USER must be an amount in US dollars')]);
  });

  it('price a dated model like its family, and an unknown one at nothing', () => {
    expect(priceOf(DEFAULT_MODEL_PRICES, 'gpt-4o-mini-2024-07-18')).toEqual(DEFAULT_MODEL_PRICES['gpt-4o-mini']);
    expect(costOfTokens(DEFAULT_MODEL_PRICES, 'gpt-4o-mini', 1_000_000, 1_000_000)).toBeCloseTo(0.75, 10);
    expect(costOfTokens(DEFAULT_MODEL_PRICES, 'my-local-model', 1_000_000, 0)).toBe(0);
    expect([formatUsd(0), formatUsd(0.0006), formatUsd(0.015), formatUsd(0.01), formatUsd(12.5)]).toEqual(['$0', '$0.0006', '$0.015', '$0.01', '$12.50']);
  });
});
