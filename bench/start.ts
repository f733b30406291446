/**
 * Start: `npm start` to the first `/healthz` 200, as an operator meets it — on an empty DATA_DIR (the embedded
 * database is created: start.fresh_ms) and on the one that start left behind (start.reopened_ms) — then the idle
 * process tree's RSS (start.idle_rss_mb): the bot's process and every process under it, summed from /proc, so a
 * helper process (the database's creator, an MCP server) is counted, not only the main process.
 *
 * The bot is the real `npm start` (npm, the package.json script, node with its flags), against the fake Slack and
 * the fake model over real HTTP in this process. Each figure is the median of RUNS starts; the machine's load
 * average is read before and after, as the figures depend on it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchFigure, BenchSuite } from './figures';
import { startFakeSlack } from '../test/fakes/fake-slack';
import { startFakeOpenAI } from '../test/fakes/fake-openai';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const RUNS = 3;
/** After /healthz first answers, how long the bot is left alone before its memory is read. */
const SETTLE_MS = 5_000;

export const startSuite: BenchSuite = {
  name: 'start',
  async run() {
    // A start, not a build: dist/ made current first (npm start's prestart then finds nothing to do, as in production).
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: repoRoot, stdio: 'inherit' });
    const slack = await startFakeSlack({ botName: 'threadwise' });
    const model = await startFakeOpenAI();
    const dirs: string[] = [];
    const loadBefore = loadavg()[0]!;
    try {
      const env = {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: 'bench-start-secret',
        SLACK_API_URL: slack.apiUrl,
        OPENAI_API_KEY: 'sk-bench-start-0123456789',
        OPENAI_BASE_URL: model.url,
        OPENAI_MODEL: 'gpt-4.1-mini',
      };
      const fresh: number[] = [];
      const reopened: number[] = [];
      const freshCpu: number[] = [];
      const reopenedCpu: number[] = [];
      let idleRss = 0;
      for (let run = 0; run < RUNS; run++) {
        const dataDir = await mkdtemp(path.join(tmpdir(), 'threadwise-bench-start-'));
        dirs.push(dataDir);
        const first = await startBot({ ...env, DATA_DIR: dataDir });
        fresh.push(first.ms);
        freshCpu.push(first.cpuMs);
        await first.stop();
        const again = await startBot({ ...env, DATA_DIR: dataDir });
        reopened.push(again.ms);
        reopenedCpu.push(again.cpuMs);
        if (run === RUNS - 1) {
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          idleRss = processTreeRssBytes(again.botPid);
        }
        await again.stop();
      }
      const load = `load average ${loadBefore.toFixed(1)} → ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`;
      return [
        { key: 'start.fresh_ms', value: median(fresh), unit: 'ms', target: '< 3000', note: `npm start on an empty DATA_DIR to /healthz 200, median of ${RUNS} (${fresh.join(', ')}); ${load}` },
        { key: 'start.reopened_ms', value: median(reopened), unit: 'ms', target: '< 2000', note: `the same DATA_DIR again, median of ${RUNS} (${reopened.join(', ')})` },
        { key: 'start.fresh_cpu_ms', value: median(freshCpu), unit: 'ms', note: `CPU time of the bot's process (and of the children it waited for) until /healthz answered: what the load average does not change much` },
        { key: 'start.reopened_cpu_ms', value: median(reopenedCpu), unit: 'ms' },
        { key: 'start.idle_rss_mb', value: Math.round(idleRss / 1024 / 1024), unit: 'MB', target: '< 250', note: `the bot's process tree ${SETTLE_MS / 1000} s after /healthz first answered (reopened database), summed from /proc` },
      ] satisfies BenchFigure[];
    } finally {
      await slack.close();
      await model.close();
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    }
  },
};

interface StartedBot {
  /** From spawning `npm start` to the first 200 from /healthz. */
  ms: number;
  /** The node process running src/main.ts (npm's child). */
  botPid: number;
  /** Its CPU time (user + system, its threads and the children it waited for) until then. */
  cpuMs: number;
  stop(): Promise<void>;
}

async function startBot(env: Record<string, string>): Promise<StartedBot> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  for (;;) {
    if (exitCode !== undefined) throw new Error(`npm start exited (code ${exitCode}) before /healthz answered:\n${stderr}`);
    if (await healthy(port)) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const ms = Math.round(performance.now() - started);
  const botPid = childrenOf(child.pid!)[0] ?? child.pid!;
  return {
    ms,
    botPid,
    cpuMs: cpuMsOf(botPid),
    async stop() {
      process.kill(botPid, 'SIGTERM');
      await stopped(child, exited);
    },
  };
}

async function stopped(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

async function healthy(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The pids of `pid`'s child processes (every thread's list: a child belongs to the thread that forked it). */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** VmRSS of `pid` and of every process under it. */
function processTreeRssBytes(pid: number): number {
  let rss = 0;
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    rss += Number(kb ?? 0) * 1024;
  } catch {
    return 0;
  }
  return rss + childrenOf(pid).reduce((sum, child) => sum + processTreeRssBytes(child), 0);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** utime + stime + cutime + cstime from /proc/PID/stat, in ms (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    // After "pid (comm) ": state is field 3, so utime (14) … cstime (17) are at 11 … 14 here.
    return [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0) * 10;
  } catch {
    return 0;
  }
}
