/**
 * `npm start` as docker stop, systemd and Kubernetes meet it: SIGTERM goes to the main process — npm itself — and
 * must reach the bot, which says it is finishing, finishes the answer in progress, and leaves no process behind
 * within SHUTDOWN_GRACE_SECONDS.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { mentionEvent, postSlackEvent } from '../fakes/slack-signing';
import { botEnvironment, MODEL_KEY, SIGNING_SECRET } from './support/bot-process';
import { eventually } from '../support/eventually';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CHANNEL = 'C0GENERAL';
const ANA = 'U0ANA';
const GRACE_SECONDS = 20;

let slack: FakeSlack;
let model: FakeOpenAI;
let dataDir: string;
beforeAll(async () => {
  slack = await startFakeSlack({ botName: 'threadwise' });
  model = await startFakeOpenAI({ apiKey: MODEL_KEY });
  slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
  slack.addChannel({ id: CHANNEL, name: 'general' });
  dataDir = await mkdtemp(path.join(tmpdir(), 'threadwise-npm-start-'));
});
afterAll(async () => {
  await slack?.close();
  await model?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Every process below `pid`, recursively (from ps, so it sees what /proc sees). */
function descendants(pid: number): Array<{ pid: number; stat: string; command: string }> {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,stat=,comm='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([p, pp, stat, ...command]) => ({ pid: Number(p), ppid: Number(pp), stat: stat!, command: command.join(' ') }));
  const found: Array<{ pid: number; stat: string; command: string }> = [];
  const walk = (parent: number) => {
    for (const row of table.filter((r) => r.ppid === parent)) {
      found.push(row);
      walk(row.pid);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start and SIGTERM', () => {
  it('delivers SIGTERM sent to npm to the bot: grace line, the answer in progress completes, no process left', { timeout: 180_000 }, async () => {
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...botEnvironment(slack, model, { DATA_DIR: dataDir, LOG_LEVEL: 'info', SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) }),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      await eventually(() => /threadwise is running/.test(stderr), { timeoutMs: 90_000, intervalMs: 50, what: () => `not running yet; ${stderr.slice(-2000)}` });
      const port = (JSON.parse(stderr.split('\n').find((line) => line.includes('threadwise is running'))!) as { port: number }).port;

      // The bot is npm's direct child: `exec` replaced the shell, so npm's signal forwarding reaches it.
      const tree = descendants(npm.pid!);
      const bot = tree.find((row) => row.command === 'node');
      expect(bot, `processes under npm: ${JSON.stringify(tree)}`).toBeDefined();
      expect(tree.filter((row) => row.command === 'sh')).toEqual([]);
      expect(tree.filter((row) => row.stat.startsWith('Z')), 'no defunct children').toEqual([]);

      model.enqueue({ delayMs: 3_000, then: { text: 'Finished while shutting down.' } });
      const message = slack.addMessage(CHANNEL, { user: ANA, text: `<@${slack.botUserId}> a question before the restart` });
      const response = await postSlackEvent(`http://127.0.0.1:${port}/slack/events`, SIGNING_SECRET, mentionEvent({ channel: CHANNEL, user: ANA, text: message.text!, ts: message.ts }), {
        teamId: slack.teamId,
      });
      expect(response.status).toBe(200);
      await model.waitForRequests(1, 30_000);

      const signalledAt = Date.now();
      npm.kill('SIGTERM');
      const { code } = await exited;
      const tookMs = Date.now() - signalledAt;

      expect(stderr).toMatch(/threadwise: SIGTERM received; finishing answers in progress \(up to 20 s\)/);
      const answers = slack.botMessages(CHANNEL, message.ts).filter((m) => m.metadata === undefined);
      expect(answers.map((m) => m.text)).toEqual([expect.stringContaining('Finished while shutting down.')]);
      expect(code).toBe(0);
      expect(tookMs).toBeLessThan(GRACE_SECONDS * 1000);
      // Nothing of the tree outlives npm: the bot, its esbuild helper, anything it started.
      await eventually(() => tree.every((row) => !alive(row.pid) || row.stat.startsWith('Z')), { timeoutMs: 5_000, intervalMs: 50, what: () => `still alive: ${JSON.stringify(tree.filter((row) => alive(row.pid))).slice(-2000)}` });
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  });
});
