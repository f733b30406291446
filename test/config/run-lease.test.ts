/** RUN_LEASE_SECONDS: how long a replica's claim on a run lasts without a heartbeat. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';

const base = { SLACK_BOT_TOKEN: 'xoxb-1-test', SLACK_SIGNING_SECRET: 'secret-for-tests', OPENAI_API_KEY: 'sk-test' };

describe('RUN_LEASE_SECONDS', () => {
  it('defaults to 30 seconds', () => {
    const loaded = loadConfig(base);
    expect(loaded.ok && loaded.config.runLeaseMs).toBe(30_000);
  });

  it('takes whole seconds from 2 to 600', () => {
    const loaded = loadConfig({ ...base, RUN_LEASE_SECONDS: '5' });
    expect(loaded.ok && loaded.config.runLeaseMs).toBe(5_000);
  });

  it('refuses anything else with one line naming the variable and the range', () => {
    for (const bad of ['1', '601', '2.5', 'soon']) {
      const loaded = loadConfig({ ...base, RUN_LEASE_SECONDS: bad });
      expect(loaded).toEqual({ ok: false, problems: [`RUN_LEASE_SECONDS must be a whole number from 2 to 600 (got "${bad}")`] });
    }
  });
});
