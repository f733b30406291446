/** `npm start` as an operator meets it: a missing variable is one clear line on stderr and a non-zero exit. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { botArgs } from '../support/bot-entry';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

function start(env: Record<string, string>) {
  return spawnSync(process.execPath, [...botArgs], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('starting without SLACK_BOT_TOKEN', { timeout: 90_000 }, () => {
  it('exits non-zero with one line naming the variable and the fix, and no stack trace', () => {
    const result = start({ SLACK_SIGNING_SECRET: 'secret', OPENAI_API_KEY: 'sk-test' });
    expect(result.status).not.toBe(0);
    const lines = result.stderr.trim().split('\n').filter((line) => !line.startsWith('npm warn'));
    expect(lines).toEqual([expect.stringMatching(/^threadwise: SLACK_BOT_TOKEN is missing: set it to the bot token \(xoxb-…\)/)]);
    expect(result.stderr).not.toMatch(/\s+at .*\.(ts|js):\d+/);
  });
});
