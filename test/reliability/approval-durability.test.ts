/**
 * A tool call waiting for approval survives the process and is decided once across replicas. Real processes
 * (`node --import tsx src/main.ts`) against the fakes, with the tracker MCP server (official SDK) over Streamable
 * HTTP in this process, counting every call that reaches it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { buttonClick, mentionEvent, postInteraction, postSlackEvent } from '../fakes/slack-signing';
import { startMcpHttpHost, type McpHttpHost } from '../fakes/mcp/http-host';
import { buildTrackerServer, callsTo, createTrackerState, type TrackerState } from '../fakes/mcp/tracker';
import { createScratchPostgres } from '../support/databases';
import { botEnvironment, killAll, SIGNING_SECRET, spawnBot, type BotProcess } from './support/bot-process';

const CHANNEL = 'C0GENERAL';
const ANA = 'U0ANA';
const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) console.warn('[approval-durability.test] two-replica case skipped: set TEST_DATABASE_URL to a PostgreSQL admin URL');

let slack: FakeSlack;
let model: FakeOpenAI;
let tracker: McpHttpHost;
let state: TrackerState;
let dir: string;
let mcpConfig: string;
const bots: BotProcess[] = [];

beforeAll(async () => {
  slack = await startFakeSlack({ botName: 'threadwise' });
  model = await startFakeOpenAI({ apiKey: 'sk-test-key-child-0123456789abcdef' });
  slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
  slack.addChannel({ id: CHANNEL, name: 'general' });
  state = createTrackerState();
  tracker = await startMcpHttpHost({ createServer: () => buildTrackerServer(state) });
  dir = await mkdtemp(path.join(tmpdir(), 'threadwise-approval-'));
  mcpConfig = path.join(dir, 'mcp.json');
  await writeFile(mcpConfig, JSON.stringify({ mcpServers: { tracker: { url: tracker.url } } }));
});
afterAll(async () => {
  await slack?.close();
  await model?.close();
  await tracker?.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  slack.reset();
  model.reset();
  state.calls.length = 0;
  model.enqueue({ toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Login fails after SSO' } }] }, { text: 'Filed it: PROJ-4.' });
});
afterEach(() => killAll(bots.splice(0)));

async function start(extra: Record<string, string>) {
  const bot = await spawnBot(botEnvironment(slack, model, { MCP_CONFIG: mcpConfig, RUN_LEASE_SECONDS: '2', ...extra }), 120_000);
  bots.push(bot);
  return bot;
}

async function askToFileABug(bot: BotProcess): Promise<string> {
  const message = slack.addMessage(CHANNEL, { user: ANA, text: `<@${slack.botUserId}> file this as a bug` });
  const response = await postSlackEvent(bot.eventsUrl, SIGNING_SECRET, mentionEvent({ channel: CHANNEL, user: ANA, text: message.text!, ts: message.ts }), {
    teamId: slack.teamId,
  });
  expect(response.status).toBe(200);
  return message.ts;
}

async function approvalMessage(threadTs: string) {
  const find = () => slack.botMessages(CHANNEL, threadTs).find((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_approve'));
  await slack.waitFor(() => find() !== undefined, 60_000);
  const message = find()!;
  const buttons = (message.blocks as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>).flatMap((block) => block.elements ?? []);
  const approvalId = buttons.find((button) => button.action_id === 'threadwise_approve')!.value!;
  return { message, approvalId };
}

const approve = (bot: BotProcess, message: { ts: string; thread_ts?: string }, approvalId: string) =>
  postInteraction(bot.eventsUrl, SIGNING_SECRET, buttonClick({ slack, user: ANA, channel: CHANNEL, message, action: { action_id: 'threadwise_approve', value: approvalId } }));

const answersIn = (threadTs: string) =>
  slack.botMessages(CHANNEL, threadTs).filter((m) => (m.text ?? '').includes('Filed it: PROJ-4.') || JSON.stringify(m.blocks ?? []).includes('Filed it: PROJ-4.'));

describe('a call waiting for approval', { timeout: 240_000 }, () => {
  it('survives kill -9: after a restart the click resumes the run and the call runs once', async () => {
    const first = await start({ DATA_DIR: path.join(dir, 'data-kill') });
    const threadTs = await askToFileABug(first);
    const { message, approvalId } = await approvalMessage(threadTs);
    first.kill('SIGKILL');
    await first.exited;

    const second = await start({ DATA_DIR: path.join(dir, 'data-kill') });
    expect((await approve(second, message, approvalId)).status).toBe(200);
    await slack.waitFor(() => answersIn(threadTs).length > 0, 60_000);
    expect(callsTo(state, 'create_issue')).toHaveLength(1);
    expect(answersIn(threadTs)).toHaveLength(1);
    expect(model.requests).toHaveLength(2); // the question, then the approved call's result: nothing asked twice
  });

  it.skipIf(!adminUrl)('is decided once when the same click reaches two replicas on PostgreSQL', async () => {
    const scratch = await createScratchPostgres(adminUrl!);
    try {
      const [a, b] = await Promise.all([start({ DATABASE_URL: scratch.url }), start({ DATABASE_URL: scratch.url })]);
      const threadTs = await askToFileABug(a!);
      const { message, approvalId } = await approvalMessage(threadTs);
      const clicks = await Promise.all([approve(a!, message, approvalId), approve(b!, message, approvalId), approve(b!, message, approvalId)]);
      expect(clicks.map((click) => click.status)).toEqual([200, 200, 200]);
      await slack.waitFor(() => answersIn(threadTs).length > 0, 60_000);
      expect(callsTo(state, 'create_issue')).toHaveLength(1);
      expect(answersIn(threadTs)).toHaveLength(1);
    } finally {
      await killAll(bots.splice(0));
      await scratch.drop();
    }
  });
});
