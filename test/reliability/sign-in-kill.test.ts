/**
 * kill -9 while a run waits for a sign-in, with threadwise as a real child process on PostgreSQL against the fake
 * Slack, the fake model and the OAuth world (test/fakes/oauth/oauth-world.ts: an authorization server and an MCP
 * server that requires bearer tokens). Ana's question needs `jira`; she gets her private Connect prompt and the run
 * parks; the process is SIGKILLed. A fresh process on the same database receives her browser's /oauth/callback and
 * resumes the run exactly once: one answer in the thread, one call at the MCP server, made with Ana's token.
 * (test/app/sign-in.test.ts proves the graceful, in-process restart.)
 *
 * Needs TEST_DATABASE_URL (CI sets it); without it the suite is skipped with a note.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/app/database/open-database';
import { rowsOf, type DatabaseHandle } from '../../src/store/database';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { startOAuthWorld, type OAuthWorld } from '../fakes/oauth/oauth-world';
import { mentionEvent, postSlackEvent } from '../fakes/slack-signing';
import { toolResultsIn } from '../agent/loop-fixtures';
import { createScratchPostgres } from '../support/databases';
import { eventually } from '../support/eventually';
import { textOf } from '../support/harness';
import { botEnvironment, killAll, MODEL_KEY, SIGNING_SECRET, spawnBot, type BotProcess } from './support/bot-process';

const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) console.warn('[sign-in-kill.test] skipped: set TEST_DATABASE_URL to a PostgreSQL admin URL');

const CHANNEL = 'C0GENERAL';
const ANA = 'U0ANA';
const PUBLIC_URL = 'https://threadwise.example.test';
const ANSWER = 'TCK-1 mentions the login bug (AFTER-KILL).';

describe.skipIf(!adminUrl)('kill -9 while a run waits for a sign-in', { timeout: 300_000 }, () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let world: OAuthWorld;
  let scratch: { url: string; drop(): Promise<void> };
  let database: DatabaseHandle;
  let dir: string;
  let mcpConfig: string;
  const tokenKey = randomBytes(32).toString('hex');
  const bots: BotProcess[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack({ botName: 'threadwise' });
    model = await startFakeOpenAI({ apiKey: MODEL_KEY });
    slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
    slack.addChannel({ id: CHANNEL, name: 'general' });
    world = await startOAuthWorld();
    dir = await mkdtemp(path.join(tmpdir(), 'threadwise-sign-in-kill-'));
    mcpConfig = path.join(dir, 'mcp.json');
    await writeFile(mcpConfig, JSON.stringify({ mcpServers: { jira: { url: world.mcpUrl, auth: 'oauth', approval: 'auto' } } }));
    scratch = await createScratchPostgres(adminUrl!);
    database = await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 2 });
  }, 120_000);
  afterAll(async () => {
    await killAll(bots);
    await database?.close();
    await scratch?.drop();
    await world?.close();
    await slack?.close();
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // Same database, same keys, same PUBLIC_URL: the callback the authorization server sends Ana's browser to is the
  // same for both processes; behind the public URL it reaches whichever process serves PORT now.
  const spawn = async () => {
    const bot = await spawnBot(
      botEnvironment(slack, model, { DATABASE_URL: scratch.url, RUN_LEASE_SECONDS: '4', MCP_CONFIG: mcpConfig, PUBLIC_URL, TOKEN_ENCRYPTION_KEY: tokenKey }),
      120_000,
    );
    bots.push(bot);
    return bot;
  };
  const runsOf = async (threadTs: string) =>
    rowsOf<{ id: number; status: string; current_step: unknown }>(
      await database.db.execute(sql`select r.id, r.status, r.current_step from runs r join threads t on t.id = r.thread_id where t.thread_ts = ${threadTs} order by r.id`),
    );
  const connectPrompts = () => slack.ephemerals.filter((e) => e.user === ANA && JSON.stringify(e.blocks ?? []).includes('oauth_connect'));
  /** Bot messages in the thread that say something (not status notes, not the questions it asks). */
  const answersIn = (threadTs: string) =>
    slack.botMessages(CHANNEL, threadTs).filter((m) => {
      const type = (m.metadata as { event_type?: string } | undefined)?.event_type;
      return type !== 'threadwise_status' && type !== 'threadwise_question' && textOf(m).trim() !== '';
    });

  it('resumes the run once when the callback reaches the process started after the kill, with Ana’s token', async () => {
    const first = await spawn();
    // Nobody has connected Jira yet, so the model sees its connect step (DESIGN.md § Per-person sign-in).
    model.enqueue({ toolCalls: [{ name: 'jira__connect', arguments: {} }] });
    const message = slack.addMessage(CHANNEL, { user: ANA, text: `<@${slack.botUserId}> which Jira issues mention the login bug?` });
    const delivered = await postSlackEvent(first.eventsUrl, SIGNING_SECRET, mentionEvent({ channel: CHANNEL, user: ANA, text: message.text!, ts: message.ts }), {
      teamId: slack.teamId,
    });
    expect(delivered.status).toBe(200);

    // Ana's private Connect prompt, and the run parked for her sign-in.
    await slack.waitFor(() => connectPrompts().length > 0, 60_000);
    const prompt = connectPrompts()[0]!;
    expect(prompt).toMatchObject({ channel: CHANNEL, user: ANA, thread_ts: message.ts });
    await eventually(async () => (await runsOf(message.ts))[0]?.status === 'waiting_approval', { timeoutMs: 30_000, what: 'the run waits for the sign-in' });
    expect((await runsOf(message.ts))[0]).toMatchObject({ current_step: { kind: 'sign_in', names: ['jira'] } });
    expect(world.calls).toEqual([]);

    // kill -9 the process that parked the run.
    process.kill(first.pid, 'SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    // A fresh process on the same database; Ana signs in at the server and her browser comes back to it.
    const second = await spawn();
    const actions = (prompt.blocks as Array<{ type: string; elements?: Array<{ action_id?: string; url?: string }> }>).find((block) => block.type === 'actions')!;
    const authorizationUrl = actions.elements!.find((element) => element.action_id === 'oauth_connect')!.url!;
    world.signInAs('ana');
    const authorized = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(authorized.status).toBe(302);
    const landing = new URL(authorized.headers.get('location')!);
    expect(`${landing.origin}${landing.pathname}`).toBe(`${PUBLIC_URL}/oauth/callback`);

    model.enqueue({ toolCalls: [{ name: 'jira__search_issues', arguments: { query: 'login' } }] }, { text: ANSWER });
    const callback = await fetch(`http://127.0.0.1:${second.port}${landing.pathname}${landing.search}`);
    expect(callback.status).toBe(200);
    expect(await callback.text()).toContain('Connected — you can go back to Slack');

    // The answer arrives; then the run is done and the model has been asked nothing more.
    const complete = () => answersIn(message.ts).filter((m) => textOf(m).includes(ANSWER) && JSON.stringify(m.blocks ?? []).includes('feedback_buttons'));
    await slack.waitFor(() => complete().length > 0, 60_000);
    await eventually(async () => (await runsOf(message.ts))[0]?.status === 'done', { timeoutMs: 30_000, what: 'the run is done' });

    expect(answersIn(message.ts)).toHaveLength(1);
    expect(complete()).toHaveLength(1);
    // The question; after the sign-in the connect step's result, then the search's: the resumed run did not start
    // over, and no second process ran it again.
    expect(model.requests).toHaveLength(3);
    expect(toolResultsIn(model.requests[1]!).at(-1)).toContain('Connected');
    expect(toolResultsIn(model.requests[2]!).at(-1)).toContain('issues for ana matching login');
    expect(world.calls).toEqual([{ user: 'ana', tool: 'search_issues', args: { query: 'login' } }]);
    expect(await runsOf(message.ts)).toHaveLength(1);
    expect(connectPrompts()).toHaveLength(1);

    // The same landing again is refused: it cannot resume the run a second time.
    const replayed = await fetch(`http://127.0.0.1:${second.port}${landing.pathname}${landing.search}`);
    expect(replayed.status).toBe(409);
    expect(answersIn(message.ts)).toHaveLength(1);
    expect(world.calls).toHaveLength(1);
  });
});
