/**
 * Real processes, really killed: `node --import tsx src/main.ts` against the fakes, on an embedded database in a
 * temp DATA_DIR that the next start reopens. A short RUN_LEASE_SECONDS lets the next start take over quickly.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { mentionEvent, postSlackEvent } from '../fakes/slack-signing';
import { botEnvironment, killAll, MODEL_KEY, SIGNING_SECRET, spawnBot, type BotProcess } from './support/bot-process';
import { startHoldingProxy, type HoldingProxy } from './support/holding-proxy';

const CHANNEL = 'C0GENERAL';
const ANA = 'U0ANA';
const RESUMING_NOTE = /interrupted while answering — picking this up again/;

let slack: FakeSlack;
let model: FakeOpenAI;
let dataDir: string;
const bots: BotProcess[] = [];
const proxies: HoldingProxy[] = [];

beforeAll(async () => {
  slack = await startFakeSlack({ botName: 'threadwise' });
  model = await startFakeOpenAI({ apiKey: MODEL_KEY });
  slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
  slack.addChannel({ id: CHANNEL, name: 'general' });
});
afterAll(async () => {
  await slack?.close();
  await model?.close();
});
beforeEach(async () => {
  slack.reset();
  model.reset();
  dataDir = await mkdtemp(path.join(tmpdir(), 'threadwise-crash-'));
});
afterEach(async () => {
  await killAll(bots.splice(0));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await rm(dataDir, { recursive: true, force: true });
});

async function start(extra: Record<string, string> = {}) {
  // Starting a process (node, tsx, an on-disk database) takes well over a minute on a loaded machine.
  const bot = await spawnBot(botEnvironment(slack, model, { DATA_DIR: dataDir, RUN_LEASE_SECONDS: '2', ...extra }), 120_000);
  bots.push(bot);
  return bot;
}

async function ask(bot: BotProcess, text: string) {
  const message = slack.addMessage(CHANNEL, { user: ANA, text: `<@${slack.botUserId}> ${text}` });
  const response = await postSlackEvent(bot.eventsUrl, SIGNING_SECRET, mentionEvent({ channel: CHANNEL, user: ANA, text: message.text!, ts: message.ts }), {
    teamId: slack.teamId,
  });
  expect(response.status).toBe(200);
  return message.ts;
}

/** The bot's answers in a thread (status notes and questions posted for /ask are not answers). */
function answersIn(threadTs: string): string[] {
  return slack
    .botMessages(CHANNEL, threadTs)
    .filter((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === undefined)
    .map((m) => m.text ?? '');
}

function notesIn(threadTs: string): string[] {
  return slack
    .botMessages(CHANNEL, threadTs)
    .map((m) => m.text ?? '')
    .filter((text) => RESUMING_NOTE.test(text));
}

const answered = (threadTs: string, text: string) => slack.waitFor(() => answersIn(threadTs).some((answer) => answer.includes(text)), 45_000);

// Each test starts two real processes on an on-disk embedded database: minutes, not seconds, on a loaded machine.
describe('a process killed with kill -9', { timeout: 180_000 }, () => {
  it('mid-run: the next start resumes the run, tells the thread, and answers once', async () => {
    model.enqueue({ delayMs: 20_000, then: { text: 'Never delivered: the process is dead.' } }, { text: 'Answered after the restart.' });
    const first = await start();
    const ts = await ask(first, 'what broke last night?');
    await model.waitForRequests(1, 30_000);
    first.kill('SIGKILL');
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });

    const second = await start();
    await answered(ts, 'Answered after the restart.');
    await second.waitForLine(/"message":"run finished".*"status":"done"/, 15_000);

    expect(answersIn(ts)).toEqual([expect.stringContaining('Answered after the restart.')]);
    expect(notesIn(ts)).toHaveLength(1);
    expect(model.requests).toHaveLength(2);
    expect(second.lines.some((line) => line.includes('"message":"resuming run"') && line.includes('"attempt":2'))).toBe(true);
  });

  it('mid-answer: the half-streamed answer becomes the resuming note, and the whole answer is posted once', async () => {
    model.enqueue(
      { text: 'Half of this answer streams out, and then the process dies before the rest of it arrives.', stallAfterChunks: 8 },
      { text: 'Answered in full after the restart.' },
    );
    const first = await start();
    const ts = await ask(first, 'tell me everything');
    await first.waitForLine(/"message":"the answer started a message"/, 30_000);
    const half = slack.botMessages(CHANNEL, ts).find((m) => /^Half of this/.test(m.text ?? ''));
    expect(half).toBeDefined();
    first.kill('SIGKILL');
    await first.exited;

    const second = await start();
    await answered(ts, 'Answered in full after the restart.');
    await second.waitForLine(/"message":"run finished".*"status":"done"/, 15_000);

    // The fragment's message now holds the note: question, note, answer, and nothing of the fragment left.
    expect(slack.botMessages(CHANNEL, ts).find((m) => m.ts === half!.ts)?.text).toMatch(RESUMING_NOTE);
    expect(slack.botMessages(CHANNEL, ts).filter((m) => /Half of this/.test(m.text ?? ''))).toEqual([]);
    expect(notesIn(ts)).toHaveLength(1);
    expect(answersIn(ts)).toEqual([expect.stringContaining('Answered in full after the restart.')]);
    // Nor was the model shown the fragment as something it had already said.
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests[1]!.messages)).not.toContain('Half of this');
  });

  it('after posting but before recording it: the next start finds the answer in the thread and posts nothing more', async () => {
    const proxy = await startHoldingProxy(slack.origin);
    proxies.push(proxy);
    model.enqueue({ text: 'Posted once, recorded never.' });
    const first = await start({ SLACK_API_URL: proxy.apiUrl });
    proxy.holdRepliesContaining('feedback_'); // the final answer carries the feedback buttons
    const ts = await ask(first, 'will you answer twice?');
    await answered(ts, 'Posted once, recorded never.');
    await slack.waitFor(() => proxy.held > 0);
    first.kill('SIGKILL');
    await first.exited;

    const second = await start();
    await second.waitForLine(/already posted before the interruption/, 30_000);
    await second.waitForLine(/"message":"run finished".*"status":"done"/, 15_000);
    expect(answersIn(ts)).toEqual([expect.stringContaining('Posted once, recorded never.')]);
    expect(notesIn(ts)).toHaveLength(0);
    expect(model.requests).toHaveLength(1);
  });
});

describe('SIGTERM', { timeout: 180_000 }, () => {
  it('with a run in flight: finishes the answer within the grace period, then exits 0', async () => {
    model.enqueue({ delayMs: 1_500, then: { text: 'Finished during shutdown.' } });
    const bot = await start({ SHUTDOWN_GRACE_SECONDS: '20', RUN_LEASE_SECONDS: '30' });
    const ts = await ask(bot, 'one more before you go?');
    await model.waitForRequests(1, 30_000);
    bot.kill('SIGTERM');
    expect(await bot.exited).toEqual({ code: 0, signal: null });
    expect(answersIn(ts)).toEqual([expect.stringContaining('Finished during shutdown.')]);
    expect(bot.lines.some((line) => line.startsWith('threadwise: SIGTERM received; finishing answers in progress'))).toBe(true);
    // Its whole log, debug lines of the Slack client included, names no secret.
    const all = bot.lines.join('\n');
    for (const secret of [slack.botToken, SIGNING_SECRET, MODEL_KEY]) expect(all).not.toContain(secret);
  });

  it('with a run longer than the grace period: exits, and the next start finishes it at once, without waiting out the lease', async () => {
    model.enqueue({ delayMs: 20_000, then: { text: 'Too slow.' } }, { text: 'Finished by the next start.' });
    // A lease far longer than the test: only handing the run back on shutdown lets the next start take it.
    const bot = await start({ SHUTDOWN_GRACE_SECONDS: '1', RUN_LEASE_SECONDS: '300' });
    const ts = await ask(bot, 'a long one?');
    await model.waitForRequests(1, 30_000);
    bot.kill('SIGTERM');
    expect((await bot.exited).code).toBe(0);

    await start({ RUN_LEASE_SECONDS: '300' });
    await answered(ts, 'Finished by the next start.');
    expect(answersIn(ts)).toEqual([expect.stringContaining('Finished by the next start.')]);
    expect(notesIn(ts)).toHaveLength(1);
  });
});
