/**
 * Per-person sign-in, end to end through startThreadwise: the fake Slack, the fake model and the OAuth world (an
 * in-process authorization server and a bearer-token MCP server, test/fakes/oauth/oauth-world.ts). Ana's question
 * needs `jira`: only she gets a private Connect prompt; her browser (fetch) signs in and comes back to
 * GET /oauth/callback on the bot's PORT; the run resumes and answers once, with her token. Ben in the same thread
 * gets his own prompt and uses his own token. A replayed state is refused. A run waiting for a sign-in survives a
 * restart and resumes once; on PostgreSQL the callback may reach the replica that did not park the run.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startThreadwise, type RunningThreadwise } from '../../src/app/index';
import { openDatabase } from '../../src/app/database/open-database';
import { createLogger } from '../../src/logging/logger';
import { rowsOf, type DatabaseHandle } from '../../src/store/database';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { startOAuthWorld, type OAuthWorld } from '../fakes/oauth/oauth-world';
import { appHomeOpenedEvent, buttonClick, mentionEvent, postSlackEvent } from '../fakes/slack-signing';
import { toolResultsIn } from '../agent/loop-fixtures';
import { eventually } from '../support/eventually';
import { createScratchPostgres } from '../support/databases';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, startHarness, textOf, type Harness } from '../support/harness';

const PUBLIC_URL = 'https://threadwise.example.test';
const TOKEN_KEY = randomBytes(32).toString('hex');
const CAT = 'U0CAT';
const DAN = 'U0DAN';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'threadwise-sign-in-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function writeMcpConfig(world: OAuthWorld, name: string, approval: Record<string, unknown> = { approval: 'auto' }): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ mcpServers: { jira: { url: world.mcpUrl, auth: 'oauth', ...approval } } }));
  return file;
}

type Ephemeral = FakeSlack['ephemerals'][number];

/** The Connect button's link in a private prompt. */
function connectUrl(prompt: Ephemeral): string {
  const actions = (prompt.blocks as Array<{ type: string; elements?: Array<{ action_id?: string; url?: string }> }>).find((block) => block.type === 'actions')!;
  const button = actions.elements!.find((element) => element.action_id === 'oauth_connect')!;
  return button.url!;
}

async function promptFor(slack: FakeSlack, user: string, count = 1): Promise<Ephemeral> {
  const prompts = () => slack.ephemerals.filter((e) => e.user === user && JSON.stringify(e.blocks ?? []).includes('oauth_connect'));
  await slack.waitFor(() => prompts().length >= count, 30_000);
  return prompts()[count - 1]!;
}

/**
 * The person signs in at the server (the test authorization server approves for `as`) and their browser is sent back
 * to ${PUBLIC_URL}/oauth/callback — which, behind the public URL, is the bot's PORT (`port`).
 */
async function signIn(world: OAuthWorld, authorizationUrl: string, as: string): Promise<URL> {
  world.signInAs(as);
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const landing = new URL(response.headers.get('location')!);
  expect(`${landing.origin}${landing.pathname}`).toBe(`${PUBLIC_URL}/oauth/callback`);
  return landing;
}

async function callback(port: number, landing: URL) {
  const response = await fetch(`http://127.0.0.1:${port}${landing.pathname}${landing.search}`);
  return { status: response.status, headers: response.headers, html: await response.text() };
}

async function runOf(db: DatabaseHandle['db'], threadTs: string) {
  return rowsOf<{ id: number; status: string; current_step: unknown; attempts: number }>(
    await db.execute(sql`select r.id, r.status, r.current_step, r.attempts from runs r join threads t on t.id = r.thread_id where t.thread_ts = ${threadTs} order by r.id`),
  );
}

describe('per-person sign-in in Slack', () => {
  let h: Harness;
  let world: OAuthWorld;
  let anaThread: string;
  let anaLanding: URL;

  beforeAll(async () => {
    world = await startOAuthWorld();
    h = await startHarness({
      // whoami asks for approval first: a per-person server follows mcp.json's approval rules like any other.
      env: { MCP_CONFIG: await writeMcpConfig(world, 'mcp', { approval: 'ask', autoApprove: ['search_issues'] }), PUBLIC_URL, TOKEN_ENCRYPTION_KEY: TOKEN_KEY, CONSOLE_PORT: '0', ADMIN_USERS: BEN },
      start: { leaseMs: 30_000, approvalSweepMs: 200 },
    });
    h.slack.addUser({ id: CAT, name: 'cat', displayName: 'Cat' });
    h.slack.addUser({ id: DAN, name: 'dan', displayName: 'Dan' });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await world?.close();
  });

  it('asks only Ana, privately; after her sign-in the run resumes and answers once, with her token', async () => {
    h.model.enqueue({ toolCalls: [{ name: 'jira__connect', arguments: {} }] });
    const { ts } = await h.mention({ user: ANA, text: `<@${h.slack.botUserId}> which Jira issues mention the login bug?` });
    anaThread = ts;
    const prompt = await promptFor(h.slack, ANA);

    expect(prompt).toMatchObject({ channel: CHANNEL, user: ANA, thread_ts: ts, text: 'To use Jira I need you to connect your account.' });
    expect(h.slack.ephemerals.filter((e) => e.user !== ANA)).toHaveLength(0);
    const url = connectUrl(prompt);
    // The link is in the private prompt only: not in the thread, not in the run's record.
    expect(JSON.stringify(h.slack.botMessages(CHANNEL, ts))).not.toContain(url);
    const [waiting] = await runOf(h.database.db, ts);
    expect(waiting).toMatchObject({ status: 'waiting_approval', current_step: { kind: 'sign_in', names: ['jira'] } });
    expect(h.slack.botMessages(CHANNEL, ts).filter((m) => textOf(m).trim() !== '')).toHaveLength(0);

    anaLanding = await signIn(world, url, 'ana');
    h.model.enqueue({ toolCalls: [{ name: 'jira__search_issues', arguments: { query: 'login' } }] }, { text: 'TCK-1 mentions the login bug.' });
    const page = await callback(h.app.port, anaLanding);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Connected — you can go back to Slack');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');

    const answers = await h.answers(CHANNEL, ts, 1, 30_000);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toContain('TCK-1 mentions the login bug.');
    expect(world.calls).toEqual([{ user: 'ana', tool: 'search_issues', args: { query: 'login' } }]);
    // The resumed connect call told the model it is connected; the search ran with Ana's account.
    expect(toolResultsIn(h.model.requests.at(-2)!).at(-1)).toContain('Connected');
    expect(toolResultsIn(h.model.requests.at(-1)!).at(-1)).toContain('issues for ana matching login');
    await eventually(async () => (await runOf(h.database.db, ts))[0]?.status === 'done', { timeoutMs: 15_000, what: 'the run is done' });
    expect(await runOf(h.database.db, ts)).toHaveLength(1);

    // The run's record says who was asked to connect and that they did; never the link.
    const steps = async () =>
      rowsOf<{ kind: string; name: string; arguments: Record<string, unknown> }>(
        await h.database.db.execute(sql`select kind, name, arguments from run_steps where run_id = ${(await runOf(h.database.db, ts))[0]!.id} and kind like 'approval%' order by id`),
      );
    await eventually(async () => (await steps()).length >= 2, { timeoutMs: 10_000, what: 'the sign-in steps are recorded' });
    expect((await steps()).map((step) => [step.kind, step.arguments.signIn])).toEqual([
      ['approval_request', 'jira'],
      ['approval_decision', 'jira'],
    ]);
    expect(JSON.stringify(await steps())).not.toMatch(/https?:/);
  });

  it('gives Ben in the same thread his own prompt and his own token; Ana is not asked again', async () => {
    h.model.enqueue({ toolCalls: [{ name: 'jira__search_issues', arguments: { query: 'billing' } }] });
    await h.mention({ user: BEN, threadTs: anaThread, text: `<@${h.slack.botUserId}> and the billing ones?` });
    const prompt = await promptFor(h.slack, BEN);
    expect(prompt).toMatchObject({ user: BEN, thread_ts: anaThread });
    expect(h.slack.ephemerals.filter((e) => e.user === ANA)).toHaveLength(1);
    expect(world.calls.filter((call) => call.args.query === 'billing')).toHaveLength(0);

    const landing = await signIn(world, connectUrl(prompt), 'ben');
    h.model.enqueue({ text: 'TCK-1 is the billing one you can see.' });
    expect((await callback(h.app.port, landing)).status).toBe(200);

    const answers = await h.answers(CHANNEL, anaThread, 2, 30_000);
    expect(answers.at(-1)).toContain('TCK-1 is the billing one you can see.');
    expect(world.calls.filter((call) => call.args.query === 'billing')).toEqual([{ user: 'ben', tool: 'search_issues', args: { query: 'billing' } }]);
    expect(toolResultsIn(h.model.requests.at(-1)!).at(-1)).toContain('issues for ben matching billing');
  });

  it('refuses a replayed state, and a state it never issued, with a sentence', async () => {
    const replayed = await callback(h.app.port, anaLanding);
    expect(replayed.status).toBe(409);
    expect(replayed.html).toContain('This sign-in link was already used');
    expect(replayed.headers.get('cache-control')).toBe('no-store');

    const foreign = new URL(anaLanding);
    foreign.searchParams.set('state', randomBytes(32).toString('base64url'));
    const refused = await callback(h.app.port, foreign);
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('not one of mine');
  });

  it('resumes a run that waited across a restart exactly once, when the callback reaches the new process', async () => {
    h.model.enqueue({ toolCalls: [{ name: 'jira__search_issues', arguments: { query: 'restart' } }] });
    const { ts } = await h.mention({ user: CAT, text: `<@${h.slack.botUserId}> any issues about restarts?` });
    const prompt = await promptFor(h.slack, CAT);
    await eventually(async () => (await runOf(h.database.db, ts))[0]?.status === 'waiting_approval', { timeoutMs: 15_000, what: 'the run waits' });

    await h.restart();
    const landing = await signIn(world, connectUrl(prompt), 'cat');
    h.model.enqueue({ text: 'One issue mentions restarts: TCK-1.' });
    expect((await callback(h.app.port, landing)).status).toBe(200);

    const answers = await h.answers(CHANNEL, ts, 1, 30_000);
    expect(answers).toEqual([expect.stringContaining('One issue mentions restarts: TCK-1.')]);
    await eventually(async () => (await runOf(h.database.db, ts))[0]?.status === 'done', { timeoutMs: 15_000, what: 'the run is done' });
    expect(world.calls.filter((call) => call.args.query === 'restart')).toEqual([{ user: 'cat', tool: 'search_issues', args: { query: 'restart' } }]);
    expect(await runOf(h.database.db, ts)).toHaveLength(1);
  });

  it('shows each person their connected servers on App Home (admins: who connected which), and Disconnect forgets the grant', async () => {
    const grants = async () => rowsOf<{ user_id: string }>(await h.database.db.execute(sql`select user_id from oauth_grants order by user_id`));
    expect((await grants()).map((row) => row.user_id)).toEqual([ANA, BEN, CAT]);
    const published = (user: string) => h.slack.callsTo('views.publish').filter((c) => c.body.user_id === user);
    const openHome = async (user: string) => {
      const before = published(user).length;
      await postSlackEvent(h.eventsUrl, SIGNING_SECRET, appHomeOpenedEvent({ user }), { teamId: h.slack.teamId });
      await h.slack.waitFor(() => published(user).length > before, 10_000);
      return JSON.stringify(published(user).at(-1)!.body.view);
    };

    const anaHome = await openHome(ANA);
    expect(anaHome).toContain('Your connected accounts');
    expect(anaHome).toContain('*Jira* — connected');
    expect(anaHome).toContain('oauth_disconnect');
    expect(anaHome).not.toContain('Connected accounts (admin)');
    const benHome = await openHome(BEN); // an admin
    expect(benHome).toContain('Connected accounts (admin)');
    expect(benHome).toContain(`<@${ANA}>`);
    expect(benHome).toContain(`<@${CAT}>`);

    const before = published(ANA).length;
    const click = buttonClick({ slack: h.slack, user: ANA, channel: CHANNEL, message: { ts: anaThread }, action: { action_id: 'oauth_disconnect', value: 'jira' } });
    expect((await h.interact(click)).status).toBe(200);
    await eventually(async () => !(await grants()).some((row) => row.user_id === ANA), { timeoutMs: 10_000, what: "Ana's grant is gone" });
    expect((await grants()).map((row) => row.user_id)).toEqual([BEN, CAT]);
    await h.slack.waitFor(() => published(ANA).length > before, 10_000);
    expect(JSON.stringify(published(ANA).at(-1)!.body.view)).toContain('Not connected: Jira');
  });

  it('forgets the grants of a person who leaves the workspace', async () => {
    const grants = async () => rowsOf<{ user_id: string }>(await h.database.db.execute(sql`select user_id from oauth_grants order by user_id`));
    await postSlackEvent(h.eventsUrl, SIGNING_SECRET, { type: 'user_change', user: { id: CAT, team_id: h.slack.teamId, deleted: true }, event_ts: '1700000000.000100' }, { teamId: h.slack.teamId });
    await eventually(async () => !(await grants()).some((row) => row.user_id === CAT), { timeoutMs: 10_000, what: "Cat's grant is gone" });
    expect((await grants()).map((row) => row.user_id)).toEqual([BEN]);
  });

  it('asks for a decision first when a call also needs approval, then for the sign-in; every call runs once, as Dan', async () => {
    h.model.enqueue({
      toolCalls: [
        { name: 'jira__whoami', arguments: {} },
        { name: 'jira__search_issues', arguments: { query: 'mine' } },
      ],
    });
    const { ts } = await h.mention({ user: DAN, text: `<@${h.slack.botUserId}> who am I in Jira, and what are my issues?` });
    const approvalMessage = () => h.slack.botMessages(CHANNEL, ts).find((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_approve'));
    await h.slack.waitFor(() => approvalMessage() !== undefined, 30_000);
    // Only the call that needs a decision is asked about; nobody is asked to sign in yet.
    expect(h.slack.botMessages(CHANNEL, ts).filter((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_approve'))).toHaveLength(1);
    expect(JSON.stringify(approvalMessage()!.blocks)).toContain('*whoami*');
    expect(h.slack.ephemerals.filter((e) => e.user === DAN)).toHaveLength(0);

    const message = approvalMessage()!;
    const approvalId = (message.blocks as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>)
      .flatMap((block) => block.elements ?? [])
      .find((element) => element.action_id === 'threadwise_approve')!.value!;
    await h.interact(buttonClick({ slack: h.slack, user: DAN, channel: CHANNEL, message, action: { action_id: 'threadwise_approve', value: approvalId } }));
    const prompt = await promptFor(h.slack, DAN);
    expect(h.slack.ephemerals.filter((e) => e.user === DAN)).toHaveLength(1); // one prompt for both calls

    const landing = await signIn(world, connectUrl(prompt), 'dan');
    h.model.enqueue({ text: 'You are dan, with TCK-1.' });
    expect((await callback(h.app.port, landing)).status).toBe(200);
    const answers = await h.answers(CHANNEL, ts, 1, 30_000);
    expect(answers.at(-1)).toContain('You are dan, with TCK-1.');
    expect(world.calls.filter((call) => call.user === 'dan').map((call) => call.tool).sort()).toEqual(['search_issues', 'whoami']);
  });

  it('never writes a token, a code or a state into the log or a console page', async () => {
    const runs = rowsOf<{ id: number }>(await h.database.db.execute(sql`select id from runs order by id`));
    const pages = await Promise.all(runs.map(async (run) => (await fetch(`${h.app.consoleUrl}/runs/${run.id}`)).text()));
    expect(pages.join('')).toContain('jira');
    const secrets = [...world.issued(), anaLanding.searchParams.get('code')!, anaLanding.searchParams.get('state')!, TOKEN_KEY];
    const logs = h.logs.join('\n');
    const consoleText = pages.join('\n');
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      expect(consoleText).not.toContain(secret);
    }
    expect(logs).toContain('person connected a per-person server');
  });
});

describe('start-up with a per-person server', () => {
  it('stops with one sentence per missing setting, before anything is opened', async () => {
    const world = await startOAuthWorld();
    try {
      const loaded = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-not-used', SLACK_SIGNING_SECRET: SIGNING_SECRET, OPENAI_API_KEY: 'sk-test-key-0123456789abcdef', MCP_CONFIG: await writeMcpConfig(world, 'mcp-startup') });
      if (!loaded.ok) throw new Error(loaded.problems.join('; '));
      const started = startThreadwise(loaded.config, { logger: createLogger({ level: 'error', write: () => {} }) });
      await expect(started).rejects.toThrow(/^TOKEN_ENCRYPTION_KEY is missing: MCP server "jira" uses "auth": "oauth".*; PUBLIC_URL is missing: /);
    } finally {
      await world.close();
    }
  });
});

const adminUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!adminUrl)('per-person sign-in across two replicas on PostgreSQL', () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let world: OAuthWorld;
  let scratch: { url: string; drop(): Promise<void> };
  const apps: RunningThreadwise[] = [];
  const handles: DatabaseHandle[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack({ botName: 'threadwise' });
    model = await startFakeOpenAI({ apiKey: 'sk-test-key-0123456789abcdef' });
    slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
    slack.addChannel({ id: CHANNEL, name: 'general' });
    world = await startOAuthWorld();
    scratch = await createScratchPostgres(adminUrl!);
  }, 60_000);
  afterAll(async () => {
    for (const app of apps.splice(0).reverse()) await app.stop(1_000).catch(() => {});
    for (const handle of handles.splice(0)) await handle.close().catch(() => {});
    await scratch?.drop();
    await slack?.close();
    await model?.close();
    await world?.close();
  });

  /** One replica: its own connection pool to the shared database, as a process of its own would have. */
  async function replica(workerId: string, mcpConfig: string): Promise<RunningThreadwise> {
    const loaded = loadConfig({
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      OPENAI_API_KEY: 'sk-test-key-0123456789abcdef',
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'gpt-4o-mini',
      PORT: '0',
      SKILLS_DIR: 'skills',
      TIMEZONE: 'Europe/Berlin',
      MODEL_TIMEOUT_SECONDS: '10',
      USER_RATE_LIMIT_PER_MINUTE: '0',
      MCP_CONFIG: mcpConfig,
      PUBLIC_URL,
      TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const database = await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 4 });
    handles.push(database);
    const logger = createLogger({ level: 'debug', secrets: [slack.botToken, SIGNING_SECRET], write: (line) => logs.push(line) });
    const app = await startThreadwise(loaded.config, { logger, database, workerId, pollMs: 200, leaseMs: 30_000 });
    apps.push(app);
    return app;
  }

  it('resumes the run once when the callback reaches the replica that did not park it', async () => {
    const mcpConfig = await writeMcpConfig(world, 'mcp-replicas');
    const parker = await replica('replica-a', mcpConfig);
    model.enqueue({ toolCalls: [{ name: 'jira__connect', arguments: {} }] });
    const message = slack.addMessage(CHANNEL, { user: ANA, text: `<@${slack.botUserId}> what is open in Jira?` });
    const delivered = await postSlackEvent(`http://127.0.0.1:${parker.port}/slack/events`, SIGNING_SECRET, mentionEvent({ channel: CHANNEL, user: ANA, text: message.text!, ts: message.ts }), {
      teamId: slack.teamId,
    });
    expect(delivered.status).toBe(200);
    const prompt = await promptFor(slack, ANA);
    await eventually(async () => (await runOf(parker.database.db, message.ts))[0]?.status === 'waiting_approval', { timeoutMs: 15_000, what: 'the run waits' });

    // Only now does the second replica start: it cannot have parked the run.
    const other = await replica('replica-b', mcpConfig);
    const landing = await signIn(world, connectUrl(prompt), 'ana');
    model.enqueue({ toolCalls: [{ name: 'jira__whoami', arguments: {} }] }, { text: 'You are ana in Jira.' });
    const page = await callback(other.port, landing);
    expect(page.status).toBe(200);

    const answered = () => slack.botMessages(CHANNEL, message.ts).filter((m) => textOf(m).includes('You are ana in Jira.'));
    await slack.waitFor(() => answered().length > 0, 30_000);
    await eventually(async () => (await runOf(parker.database.db, message.ts))[0]?.status === 'done', { timeoutMs: 15_000, what: 'the run is done' });
    expect(answered()).toHaveLength(1);
    expect(world.calls).toEqual([{ user: 'ana', tool: 'whoami', args: {} }]);
    expect(await runOf(parker.database.db, message.ts)).toHaveLength(1);
    for (const secret of world.issued()) expect(logs.join('\n')).not.toContain(secret);
  });
});
