/**
 * Who gets in: the token through a form, a signed cookie (HttpOnly, SameSite=Strict, Secure only behind HTTPS), a 401
 * page and no cookie for a wrong token, the CSRF token on the one writing form, loopback-only when open, and a
 * console on 0.0.0.0 without a token refused at start-up with one line.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';
import { createConsole } from '../../src/console/create-console';
import { createLogger } from '../../src/logging/logger';
import { DEFAULT_MODEL_PRICES } from '../../src/config/model-prices';
import { readTodaysSpend } from '../../src/store/spend-limit-store';
import { botArgs } from '../support/bot-entry';

const TOKEN = 'a-long-console-token-0f9e8d7c6b5a';
let database: DatabaseHandle;
const logs: string[] = [];

beforeAll(async () => {
  database = await openDatabase({ driver: 'pglite' });
});
afterAll(() => database?.close());

const consoleWith = (token: string | undefined, trustProxy = false) =>
  createConsole({
    db: database.db,
    logger: createLogger({ level: 'debug', secrets: [token], write: (line) => logs.push(line) }),
    token,
    trustProxy,
    prices: DEFAULT_MODEL_PRICES,
    limits: { dailyUserUsd: 1, dailyChannelUsd: 0 },
    health: async () => ({ database: { ok: true, latencyMs: 1 }, intakeWaiting: 0, activeRuns: 0 }),
  });

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', host: '127.0.0.1:4000' },
  body: new URLSearchParams(fields).toString(),
});

async function signIn(app: ReturnType<typeof consoleWith>, headers: Record<string, string> = {}) {
  const response = await app.request('http://127.0.0.1:4000/sign-in', { ...form({ token: TOKEN, next: '/usage' }), headers: { ...form({}).headers, ...headers } });
  return { response, cookie: response.headers.get('set-cookie') ?? '' };
}

describe('signing in with CONSOLE_TOKEN', () => {
  it('sends pages to the sign-in form until signed in', async () => {
    const response = await consoleWith(TOKEN).request('http://127.0.0.1:4000/runs');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/sign-in?next=%2Fruns');
    expect((await consoleWith(TOKEN).request('http://127.0.0.1:4000/usage.csv')).status).toBe(401);
  });

  it('answers a wrong token with a 401 page and no cookie', async () => {
    const response = await consoleWith(TOKEN).request('http://127.0.0.1:4000/sign-in', form({ token: 'a-long-console-token-0f9e8d7c6b5X', next: '/' }));
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.text()).toContain('That token is not right');
    expect(logs.join('\n')).not.toContain('0f9e8d7c6b5X');
  });

  it('sets an HttpOnly, SameSite=Strict session cookie for the right token, Secure only over HTTPS', async () => {
    const { response, cookie } = await signIn(consoleWith(TOKEN));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/usage');
    expect(cookie).toMatch(/^threadwise_console=\d+\.[\w-]+;/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).not.toContain('Secure');
    expect(cookie).not.toContain(TOKEN);
    // X-Forwarded-Proto counts only from a proxy the operator trusts.
    expect((await signIn(consoleWith(TOKEN), { 'x-forwarded-proto': 'https' })).cookie).not.toContain('Secure');
    expect((await signIn(consoleWith(TOKEN, true), { 'x-forwarded-proto': 'https' })).cookie).toContain('Secure');
    const page = await consoleWith(TOKEN).request('http://127.0.0.1:4000/runs', { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('refuses a forged or expired session cookie', async () => {
    const forged = await consoleWith(TOKEN).request('http://127.0.0.1:4000/runs', { headers: { cookie: `threadwise_console=${Date.now() + 60_000}.forged` } });
    expect(forged.status).toBe(303);
    const { cookie } = await signIn(consoleWith('another-token-entirely-1234567890'.replace('another', 'other')));
    expect(cookie).toBe(''); // a different console's token does not match ours
  });
});

describe('the one writing form (lift a limit)', () => {
  const csrfOf = (html: string) => html.match(/name="csrf" value="([^"]+)"/)?.[1];

  it('needs the CSRF token of the session', async () => {
    const app = consoleWith(TOKEN);
    const session = (await signIn(app)).cookie.split(';')[0]!;
    const usage = await (await app.request('http://127.0.0.1:4000/usage', { headers: { cookie: session } })).text();
    const csrf = csrfOf(usage)!;
    expect(csrf).toBeTruthy();
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      app.request('http://127.0.0.1:4000/limits/lift', { ...form(fields), headers: { ...form({}).headers, cookie: session, ...headers } });

    expect((await post({ scope: 'user', subject: 'U0CSRF' })).status).toBe(403);
    expect((await post({ scope: 'user', subject: 'U0CSRF', csrf: 'made-up' })).status).toBe(403);
    expect((await post({ scope: 'user', subject: 'U0CSRF', csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await readTodaysSpend(database.db, { userIds: ['U0CSRF'], channelIds: [] })).lifted.size).toBe(0);

    const lifted = await post({ scope: 'user', subject: 'U0CSRF', csrf, by: 'ops' });
    expect(lifted.status).toBe(303);
    expect([...(await readTodaysSpend(database.db, { userIds: ['U0CSRF'], channelIds: [] })).lifted]).toEqual(['user:U0CSRF']);
  });
});

describe('an open console (no token)', () => {
  it('serves loopback names only, so a rebinding web page cannot read it', async () => {
    const app = consoleWith(undefined);
    expect((await app.request('http://127.0.0.1:4000/runs', { headers: { host: '127.0.0.1:4000' } })).status).toBe(200);
    expect((await app.request('http://localhost:4000/', { headers: { host: 'localhost:4000' } })).status).toBe(200);
    expect((await app.request('http://evil.example/runs', { headers: { host: 'evil.example' } })).status).toBe(403);
  });
});

describe('start-up', () => {
  it('refuses a console on 0.0.0.0 without CONSOLE_TOKEN, with one line', async () => {
    const child = spawn(process.execPath, [...botArgs], {
      env: {
        PATH: process.env.PATH,
        SLACK_BOT_TOKEN: 'xoxb-test-token',
        SLACK_SIGNING_SECRET: 'secret',
        OPENAI_API_KEY: 'sk-test-key-0123456789abcdef',
        CONSOLE_PORT: '0',
        CONSOLE_HOST: '0.0.0.0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^threadwise: CONSOLE_TOKEN is missing: the console would listen on 0\.0\.0\.0 \(CONSOLE_HOST\).*openssl rand -hex 32.*CONSOLE_HOST=127\.0\.0\.1$/);
  }, 60_000);
});
