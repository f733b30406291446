/**
 * `npm start` as an operator meets it, each case the real process (`node --import tsx src/main.ts`) against the fake
 * Slack and the fake model over HTTP: one line per stage while it starts; the model checked (a refused key and an
 * unknown model stop it with one sentence naming OPENAI_API_KEY or OPENAI_MODEL, an unreachable endpoint is one
 * warning naming OPENAI_BASE_URL and it starts anyway, its state in /healthz); PORT in use said before the database
 * is created; `.env` in the working directory read, the environment winning over it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
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
let scratch: string;
beforeAll(async () => {
  slack = await startFakeSlack({ botName: 'threadwise' });
  model = await startFakeOpenAI();
  scratch = await mkdtemp(path.join(tmpdir(), 'threadwise-stages-'));
});
afterAll(async () => {
  await slack?.close();
  await model?.close();
  await rm(scratch, { recursive: true, force: true });
});

interface Started {
  /** Exit code, or undefined when it is running (then stopped by the test). */
  code: number | null | undefined;
  /** Every "threadwise…" line on stderr, in order (JSON log lines left out). */
  lines: string[];
  stderr: string;
  /** /healthz's JSON, read once it was running. */
  health?: { status: number; body: any };
}

let dirs = 0;
const freshDataDir = () => path.join(scratch, `data-${++dirs}`);

/**
 * Starts the bot and waits until it exits or says it is running; a running bot's /healthz is read, then it is
 * stopped with SIGTERM. A variable given as undefined is left out of its environment.
 */
function start(env: Record<string, string | undefined>, options: { cwd?: string } = {}): Promise<Started> {
  return new Promise((resolve, reject) => {
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
    const child = spawn(process.execPath, [...botArgs], {
      cwd: options.cwd ?? repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: 'stages-test-secret',
        SLACK_API_URL: slack.apiUrl,
        OPENAI_API_KEY: 'sk-test-stages-0123456789',
        OPENAI_BASE_URL: model.url,
        OPENAI_MODEL: 'gpt-4.1-mini',
        SKILLS_DIR: path.join(repoRoot, 'skills'),
        PORT: '0',
        DATA_DIR: freshDataDir(),
        ...env,
      } as Record<string, string>,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let health: Started['health'];
    let running = false;
    const lines = () => stderr.split('\n').filter((line) => line.startsWith('threadwise'));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the bot neither exited nor ran within 90 s; stderr so far:\n${stderr}`));
    }, 90_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const port = /^threadwise is running: .*http:\/\/localhost:(\d+)\/healthz/m.exec(stderr)?.[1];
      if (!port || running) return;
      running = true;
      void fetch(`http://127.0.0.1:${port}/healthz`)
        .then(async (response) => (health = { status: response.status, body: await response.json() }))
        .finally(() => child.kill('SIGTERM'));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: running ? undefined : code, lines: lines(), stderr, health });
    });
  });
}

/** The lines that are not stages ("connecting to Slack…"): the outcome. */
const outcome = (started: Started) => started.lines.filter((line) => !line.endsWith('…'));

function expectStoppedWith(started: Started, pattern: RegExp) {
  expect(started.code).not.toBe(0);
  expect(started.code).not.toBeUndefined();
  expect(outcome(started)).toEqual([expect.stringMatching(pattern)]);
  expect(started.stderr, started.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
}

describe('starting threadwise', { timeout: 120_000 }, () => {
  it('says each stage on a line of its own, creates the database on a first start, then says it is running', async () => {
    const started = await start({});
    expect(started.code).toBeUndefined();
    expect(started.lines.slice(0, 4)).toEqual([
      expect.stringMatching(/^threadwise: connecting to Slack at http:\/\/127\.0\.0\.1:\d+\/api\/…$/),
      expect.stringMatching(/^threadwise: checking the model gpt-4\.1-mini at http:\/\/127\.0\.0\.1:\d+\/v1…$/),
      expect.stringMatching(/^threadwise: creating the embedded database in .*data-\d+ \(first start, ~\d+ s\)…$/),
      expect.stringMatching(/^threadwise is running: Slack events at http:\/\/localhost:\d+\/slack\/events, health at http:\/\/localhost:\d+\/healthz \(started in [\d.]+ s\)$/),
    ]);
    expect(started.health).toEqual({ status: 200, body: { ok: true, model: { state: 'ok', model: 'gpt-4.1-mini', url: model.url } } });
  });

  it('a key the model endpoint refuses: one sentence naming OPENAI_API_KEY, before the database is created', async () => {
    const strict = await startFakeOpenAI({ apiKey: 'sk-the-right-key-0123456789' });
    try {
      const dataDir = freshDataDir();
      const started = await start({ OPENAI_BASE_URL: strict.url, OPENAI_API_KEY: 'sk-a-wrong-key-0123456789', DATA_DIR: dataDir });
      expectStoppedWith(started, /^threadwise: the model endpoint at http:\/\/127\.0\.0\.1:\d+\/v1 refused OPENAI_API_KEY \(HTTP 401, invalid_api_key\): check the key, and that OPENAI_BASE_URL is the endpoint it belongs to\.$/);
      expect(started.stderr).not.toContain('sk-a-wrong-key');
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await strict.close();
    }
  });

  it('a model the endpoint does not have: one sentence naming OPENAI_MODEL', async () => {
    model.modelRoute = 'listed';
    try {
      const started = await start({ OPENAI_MODEL: 'gpt-no-such-model' });
      expectStoppedWith(started, /^threadwise: the model endpoint at http:\/\/127\.0\.0\.1:\d+\/v1 has no model "gpt-no-such-model" \(OPENAI_MODEL\): set OPENAI_MODEL to a model it serves\.$/);
    } finally {
      model.modelRoute = 'any';
    }
  });

  it('an unreachable model endpoint: one warning naming OPENAI_BASE_URL and its value, and it starts anyway', async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}/v1`;
    const started = await start({ OPENAI_BASE_URL: nowhere });
    expect(started.code).toBeUndefined();
    const warnings = started.lines.filter((line) => line.startsWith('threadwise: warning:'));
    expect(warnings).toEqual([
      `threadwise: warning: could not reach the model at OPENAI_BASE_URL=${nowhere} (connection refused, ECONNREFUSED); starting anyway, and questions will fail until it answers.`,
    ]);
    expect(started.lines.some((line) => line.startsWith('threadwise is running'))).toBe(true);
    expect(started.health?.status).toBe(200);
    expect(started.health?.body.model).toEqual({
      state: 'unreachable',
      model: 'gpt-4.1-mini',
      url: nowhere,
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastError: 'could not reach it (connection refused, ECONNREFUSED)',
    });
  });

  it('PORT in use: said at once, naming PORT, before the database is created or Slack is asked', async () => {
    const taken = await occupyPort();
    try {
      const dataDir = freshDataDir();
      const started = await start({ PORT: String(taken.port), DATA_DIR: dataDir });
      expectStoppedWith(started, new RegExp(`^threadwise: PORT ${taken.port} is in use by another process: stop that process, or set PORT to a free port\\.$`));
      expect(started.lines).toHaveLength(1);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await taken.close();
    }
  });

  it('reads .env in the working directory; a variable set in the environment wins over it', async () => {
    const cwd = await mkdtemp(path.join(scratch, 'cwd-'));
    // SLACK_SIGNING_SECRET is only in the file; OPENAI_MODEL is in both.
    await writeFile(path.join(cwd, '.env'), '# threadwise\nSLACK_SIGNING_SECRET="from-the-env-file"\nexport OPENAI_MODEL=gpt-4.1\n');
    const started = await start({ SLACK_SIGNING_SECRET: undefined, OPENAI_MODEL: 'gpt-4.1-mini' }, { cwd });
    expect(started.code).toBeUndefined();
    expect(started.health?.body.model.model).toBe('gpt-4.1-mini');
  });

  it('a .env line that is not NAME=value: one sentence naming the file and the line, never its text', async () => {
    const cwd = await mkdtemp(path.join(scratch, 'cwd-'));
    await writeFile(path.join(cwd, '.env'), 'PORT=3000\nSLACK_BOT_TOKEN xoxb-a-secret-token\n');
    const started = await start({}, { cwd });
    expectStoppedWith(started, new RegExp(`^threadwise: ${escape(path.join(cwd, '.env'))} line 2 is not NAME=value: write each setting on its own line as NAME=value`));
    expect(started.stderr).not.toContain('xoxb-a-secret-token');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function occupyPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return { port: (server.address() as { port: number }).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
