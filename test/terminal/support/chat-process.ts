/**
 * `npm run chat` as a person runs it: a child process (npm → node, no shell left between them), its stdout and
 * stderr kept whole, its stdin piped so a test can type into it.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FakeOpenAI } from '../../fakes/fake-openai';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

export interface ChatProcess {
  pid: number;
  stdout(): string;
  stderr(): string;
  /** stderr without npm's own lines (its banner goes to stdout, its warnings here). */
  ownStderr(): string;
  write(text: string): void;
  endInput(): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when stdout or stderr matches, waiting up to `timeoutMs`. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** The processes npm started: pid and command line. */
  children(): Array<{ pid: number; args: string }>;
  kill(signal: NodeJS.Signals): void;
}

/** The model variables pointing at the fake, and a data folder of the test's own. */
export function chatEnvironment(model: Pick<FakeOpenAI, 'url'>, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test-chat-0123456789', OPENAI_MODEL: 'gpt-4.1-mini', DATA_DIR: dataDir, TIMEZONE: 'UTC', ...extra };
}

/** `npm run chat -- …args` (`silent`: npm prints no banner, so stdout is the answer alone). */
export function spawnChat(args: string[], env: Record<string, string>, options: { silent?: boolean; cwd?: string } = {}): ChatProcess {
  const child = spawn('npm', ['run', ...(options.silent ? ['--silent'] : []), 'chat', '--', ...args], {
    cwd: options.cwd ?? REPO,
    // Only what a process needs, so nothing of the test runner's environment leaks into the chat's config.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    for (const listener of listeners) listener();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    pid: child.pid!,
    stdout: () => out,
    stderr: () => err,
    ownStderr: () =>
      err
        .split('\n')
        .filter((line) => line && !/^npm (warn|notice|error)/i.test(line))
        .join('\n'),
    write: (text) => child.stdin.write(text),
    endInput: () => child.stdin.end(),
    exited,
    waitFor(stream, pattern, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(stream === 'stdout' ? out : err)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`chat never printed ${pattern} on ${stream}.\nstdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    children() {
      // From /proc rather than ps: nothing to install on a fresh machine.
      const found: Array<{ pid: number; args: string }> = [];
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
          const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          if (parent !== child.pid) continue;
          found.push({ pid: Number(entry), args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') });
        } catch {
          // the process ended while we looked
        }
      }
      return found;
    },
    kill: (signal) => child.kill(signal),
  };
}
