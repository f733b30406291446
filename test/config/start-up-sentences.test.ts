/**
 * What an operator reads when `npm start` cannot start: one line naming the variable and the fix, credentials never
 * echoed, an unreachable database retried for a bounded time then said as such, an unreachable Slack said as such
 * (not blamed on the token), a refused token named. Each case is the real process (`node --import tsx src/main.ts`).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { botArgs } from '../support/bot-entry';
import { closedPort } from '../support/closed-port';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

let slack: FakeSlack;
let model: FakeOpenAI;
let dataDir: string;
beforeAll(async () => {
  slack = await startFakeSlack({ botName: 'threadwise' });
  model = await startFakeOpenAI();
  dataDir = await mkdtemp(path.join(tmpdir(), 'threadwise-sentences-'));
});
afterAll(async () => {
  await slack?.close();
  await model?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Starts the bot with `env`, waits for it to exit; returns its exit code and stderr lines. */
function start(env: Record<string, string>): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...botArgs], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: 'sentence-test-secret',
        SLACK_API_URL: slack.apiUrl,
        OPENAI_API_KEY: 'sk-test-sentences-0123456789',
        OPENAI_BASE_URL: model.url,
        PORT: '0',
        DATA_DIR: dataDir,
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the bot did not exit within 60 s; stderr so far:\n${stderr}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      // What main.ts says is the plain "threadwise: …" line; JSON log lines (retries) and the stages it went
      // through ("connecting to Slack…") may precede it.
      const lines = stderr.split('\n').filter((line) => line.startsWith('threadwise:') && !line.endsWith('…'));
      resolve({ code, lines, stderr });
    });
  });
}

function expectOneSentence(result: { code: number | null; lines: string[]; stderr: string }, pattern: RegExp) {
  expect(result.code).not.toBe(0);
  expect(result.lines).toEqual([expect.stringMatching(pattern)]);
  expect(result.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
}

describe('start-up sentences', { timeout: 90_000 }, () => {
  it('DATABASE_URL of another database kind: names the variable and the form, without the password', async () => {
    const result = await start({ DATABASE_URL: 'mysql://admin:hunter2-secret@db.internal:3306/threadwise' });
    expectOneSentence(result, /^threadwise: DATABASE_URL cannot use mysql \(got "mysql:\/\/\*\*\*@db\.internal:3306\/threadwise"\); use postgres:\/\/user:password@host:5432\/database/);
    expect(result.stderr).not.toContain('hunter2-secret');
  });

  it('a PostgreSQL host that does not resolve: retried for DATABASE_WAIT_SECONDS, then one sentence naming the host and the fix', async () => {
    const result = await start({ DATABASE_URL: 'postgres://app:hunter2-secret@nowhere:1/x', DATABASE_WAIT_SECONDS: '1' });
    expectOneSentence(
      result,
      /^threadwise: DATABASE_URL: PostgreSQL at nowhere:1 could not be reached within 1 s \((ENOTFOUND: the host name does not resolve|EAI_AGAIN: the host name could not be resolved)\); check the host and port in DATABASE_URL/,
    );
    expect(result.stderr).not.toContain('hunter2-secret');
  });

  it('a port nobody listens on: the same policy and the same kind of sentence', async () => {
    const result = await start({ DATABASE_URL: 'postgres://app@127.0.0.1:1/x', DATABASE_WAIT_SECONDS: '1' });
    expectOneSentence(result, /^threadwise: DATABASE_URL: PostgreSQL at 127\.0\.0\.1:1 could not be reached within 1 s \(ECONNREFUSED: nothing listens on that port\)/);
    expect(result.stderr).toContain('database not reachable yet; retrying');
  });

  it('a server that accepts and never answers: given up after the connect timeout, not hung', async () => {
    const silent = await startSilentServer();
    try {
      const result = await start({ DATABASE_URL: `postgres://app@127.0.0.1:${silent.port}/x`, DATABASE_WAIT_SECONDS: '1' });
      expectOneSentence(result, new RegExp(`^threadwise: DATABASE_URL: PostgreSQL at 127\\.0\\.0\\.1:${silent.port} could not be reached within 1 s \\(CONNECT_TIMEOUT: the server accepted the connection but never answered\\)`));
    } finally {
      await silent.close();
    }
  });

  it('Slack unreachable: said as such, not blamed on the token', async () => {
    const port = await closedPort();
    const result = await start({ SLACK_API_URL: `http://127.0.0.1:${port}/api/` });
    expectOneSentence(result, new RegExp(`^threadwise: could not reach Slack at http://127\\.0\\.0\\.1:${port}/api/ \\(ECONNREFUSED\\): check SLACK_API_URL .*Slack did not refuse anything\\.$`));
  });

  it('a Slack URL on a port fetch refuses: a sentence, not "(bad port)"', async () => {
    const result = await start({ SLACK_API_URL: 'http://127.0.0.1:1/api/' });
    expectOneSentence(result, /^threadwise: could not reach Slack at http:\/\/127\.0\.0\.1:1\/api\/: Node refuses to connect to port 1, which is reserved for another protocol; use another port in SLACK_API_URL\.$/);
  });

  it('OPENAI_BASE_URL without its scheme: says what is missing and what was probably meant', async () => {
    const result = await start({ OPENAI_BASE_URL: 'localhost:11434' });
    expectOneSentence(result, /^threadwise: OPENAI_BASE_URL must start with http:\/\/ or https:\/\/ \(got "localhost:11434"; did you mean http:\/\/localhost:11434\/v1\?\)$/);
  });

  it('a bot token Slack refuses: names SLACK_BOT_TOKEN and where to copy it from', async () => {
    const result = await start({ SLACK_BOT_TOKEN: 'xoxb-0000-revoked' });
    expectOneSentence(result, /^threadwise: Slack refused SLACK_BOT_TOKEN \(invalid_auth\): copy the Bot User OAuth Token/);
    expect(result.stderr).not.toContain('xoxb-0000-revoked');
  });

  it('an app token Slack refuses: names SLACK_APP_TOKEN, not "An API error occurred"', async () => {
    const result = await start({ SLACK_APP_TOKEN: 'xapp-1-A000-wrong' });
    expectOneSentence(result, /^threadwise: Slack refused SLACK_APP_TOKEN \(invalid_auth\): generate an app-level token with the connections:write scope/);
    expect(result.stderr).not.toMatch(/An API error occurred/);
  });

  it('channel names in ALLOWED_CHANNELS: refused at start with "use channel ids like C0123ABC"', async () => {
    const result = await start({ ALLOWED_CHANNELS: 'C0GENERAL,general' });
    expectOneSentence(result, /^threadwise: ALLOWED_CHANNELS has "general", which is not an id: use channel ids like C0123ABC/);
  });

  it('user names in ALLOWED_USERS: refused at start the same way', async () => {
    const result = await start({ ALLOWED_USERS: '@ana' });
    expectOneSentence(result, /^threadwise: ALLOWED_USERS has "@ana", which is not an id: use user ids like U0123ABC/);
  });
});

/** A TCP server on 127.0.0.1 that accepts connections and never sends a byte. */
async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
