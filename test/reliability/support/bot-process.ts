/**
 * threadwise as a real child process (`node --import tsx src/main.ts`, what `npm start` runs), for what only a
 * process can show: kill -9 mid-run, SIGTERM, several replicas on one PostgreSQL. Its JSON log lines on stderr are
 * kept for assertions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FakeSlack } from '../../fakes/fake-slack';
import type { FakeOpenAI } from '../../fakes/fake-openai';
import { botArgs } from '../../support/bot-entry';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

export const SIGNING_SECRET = 'test-signing-secret-child-4c1d';
export const MODEL_KEY = 'sk-test-key-child-0123456789abcdef';

export interface BotProcess {
  pid: number;
  port: number;
  eventsUrl: string;
  /** Every stderr line so far (JSON log lines, and main.ts's plain "threadwise: …" lines). */
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
  /** Resolves with the first line matching, waiting up to `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/** Environment pointing a child at the fakes; `extra` adds or overrides (DATABASE_URL, DATA_DIR, RUN_LEASE_SECONDS…). */
export function botEnvironment(slack: Pick<FakeSlack, 'botToken' | 'apiUrl'>, model: Pick<FakeOpenAI, 'url'>, extra: Record<string, string>) {
  return {
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    OPENAI_API_KEY: MODEL_KEY,
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'gpt-4o-mini',
    PORT: '0',
    TIMEZONE: 'UTC',
    MODEL_TIMEOUT_SECONDS: '60',
    USER_RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'debug',
    ...extra,
  };
}

export async function spawnBot(env: Record<string, string>, startTimeoutMs = 60_000): Promise<BotProcess> {
  const child: ChildProcess = spawn(process.execPath, [...botArgs], {
    cwd: REPO,
    // Only what a process needs from the outside, so nothing from the test runner leaks into its config.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  let partial = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts.filter(Boolean));
    for (const listener of listeners) listener();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      if (partial) lines.push(partial);
      for (const listener of listeners) listener();
      resolve({ code, signal });
    }),
  );
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const waitForLine = (pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.find((line) => pattern.test(line));
        if (found) {
          done();
          resolve(found);
        } else if (hasExited) {
          done();
          reject(new Error(`bot ${child.pid} exited before logging ${pattern}; last lines:\n${lines.slice(-15).join('\n')}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`bot ${child.pid} did not log ${pattern} within ${timeoutMs} ms; last lines:\n${lines.slice(-15).join('\n')}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  const running = await waitForLine(/threadwise is running/, startTimeoutMs).catch((error) => {
    child.kill('SIGKILL');
    throw error;
  });
  const port = (JSON.parse(running) as { port: number }).port;
  return {
    pid: child.pid!,
    port,
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    lines,
    exited,
    kill: (signal) => {
      if (!hasExited) child.kill(signal);
    },
    waitForLine,
  };
}

/** Kills what is still running and waits for it to be gone (afterAll). */
export async function killAll(bots: Array<BotProcess | undefined>): Promise<void> {
  await Promise.all(
    bots.map(async (bot) => {
      if (!bot) return;
      bot.kill('SIGKILL');
      await bot.exited;
    }),
  );
}
