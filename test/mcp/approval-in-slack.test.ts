/**
 * MCP tools in a Slack thread, end to end: the real app against the fake Slack and the fake model, with a real MCP
 * server (the tracker, built with the official SDK) over Streamable HTTP on loopback. A call that needs approval
 * waits for Approve (a signed block_actions interaction) and reaches the server exactly once; Deny means zero calls
 * and the model reads who denied it; anyone else's click changes nothing; reads marked autoApprove just run.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/store/database';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, ANA, BEN, CHANNEL, type Harness } from '../support/harness';
import { startMcpHttpHost, type McpHttpHost } from '../fakes/mcp/http-host';
import { buildTrackerServer, callsTo, createTrackerState, type TrackerState } from '../fakes/mcp/tracker';
import { toolResultsIn } from '../agent/loop-fixtures';
import { fakeStdioServer } from '../fakes/mcp/stdio-command';
import { closedPort } from '../support/closed-port';
import { buttonClick } from '../fakes/slack-signing';
import { eventually } from '../support/eventually';

let h: Harness;
let tracker: McpHttpHost;
let state: TrackerState;

beforeAll(async () => {
  state = createTrackerState();
  const oddServer = fakeStdioServer('misbehaving');
  tracker = await startMcpHttpHost({ createServer: () => buildTrackerServer(state), requireHeaders: { authorization: 'Bearer tracker-secret-token-42' } });
  const dir = await mkdtemp(path.join(tmpdir(), 'threadwise-mcp-'));
  const mcpConfig = path.join(dir, 'mcp.json');
  await writeFile(
    mcpConfig,
    JSON.stringify({
      mcpServers: {
        tracker: { url: tracker.url, headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' }, autoApprove: ['search_issues', 'get_issue'] },
        // Over stdio, with every kind of malformed schema. With the tracker that makes 25 tools, past the budget of 20:
        // requests carry search_tools instead, and calls by name still reach the servers (the cleaned schemas are
        // checked against the fake model's rules in hub-http.test.ts).
        odd: { command: oddServer.command, args: oddServer.args, approval: 'auto' },
        // Nothing listens here: down at start, retried in the background, named in /healthz.
        gone: { url: `http://127.0.0.1:${await closedPort()}/mcp` },
      },
    }),
  );
  h = await startHarness({
    env: { MCP_CONFIG: mcpConfig, ADMIN_USERS: 'U0ADMIN' },
    // A lease long enough that a loaded machine never takes a run over mid-test: a taken-over run would find its
    // approved call claimed and, by design (at most once), not run it again.
    start: { env: { TRACKER_TOKEN: 'tracker-secret-token-42' }, approvalSweepMs: 200, leaseMs: 30_000 },
  });
  // Three servers (one a child process started through tsx) and the app: over a minute on a loaded machine.
}, 180_000);
afterAll(async () => {
  await h?.close();
  await tracker?.close();
});
beforeEach(() => {
  h.slack.reset();
  h.model.reset();
  state.calls.length = 0;
});

/** Someone clicks a button on the approval message. */
function click(user: string, message: { ts: string; thread_ts?: string }, actionId: string, value: string) {
  return h.interact(buttonClick({ slack: h.slack, user, channel: CHANNEL, message, action: { action_id: actionId, value } }));
}

/** Waits for the approval message in the thread and returns it with its buttons. */
async function approvalMessage(threadTs: string) {
  const find = () => h.slack.botMessages(CHANNEL, threadTs).find((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_approve'));
  await h.slack.waitFor(() => find() !== undefined, 20_000);
  const message = find()!;
  const buttons = (message.blocks as Array<{ type: string; elements?: Array<{ action_id?: string; value?: string; text?: { text: string } }> }>)
    .filter((block) => block.type === 'actions')
    .flatMap((block) => block.elements ?? []);
  return { message, buttons, approvalId: buttons[0]!.value! };
}

/**
 * The approval message once it shows its outcome. The run resumes the moment the decision commits, so its answer
 * can reach the thread before the message is redrawn.
 */
async function redrawnShowing(threadTs: string, messageTs: string, outcome: string) {
  const current = () => h.slack.botMessages(CHANNEL, threadTs).find((m) => m.ts === messageTs)!;
  await h.slack.waitFor(() => JSON.stringify(current().blocks).includes(outcome), 10_000);
  return current();
}

function fileBugThenAnswer() {
  h.model.enqueue(
    { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Login fails after SSO', description: 'Steps:\n1. Open the app\n2. **Sign in** with SSO' } }] },
    { text: 'Filed it: PROJ-4.' },
  );
}

describe('a tool call that needs approval', () => {
  it('asks in the thread, runs once on Approve by the person who asked, and the answer follows', async () => {
    fileBugThenAnswer();
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> file this thread as a bug` });
    const { message, buttons, approvalId } = await approvalMessage(ts);

    expect(buttons.map((button) => button.text?.text)).toEqual(['Approve', 'Deny']);
    const shown = JSON.stringify(message.blocks);
    expect(shown).toContain('*create_issue*');
    expect(shown).toContain('*tracker*');
    expect(shown).toContain('Login fails after SSO');
    expect(shown).toContain('2. **Sign in** with SSO```'); // the description as it will be sent, not rendered as Slack text
    expect(callsTo(state, 'create_issue')).toHaveLength(0);

    // Someone else clicks: told who can decide, nothing runs.
    await click(BEN, message, 'threadwise_approve', approvalId);
    await h.slack.waitFor(() => h.slack.ephemerals.some((e) => e.user === BEN), 10_000);
    expect(h.slack.ephemerals.find((e) => e.user === BEN)?.text).toBe(`Only <@${ANA}> (who asked) or an admin can approve or deny this.`);
    expect(callsTo(state, 'create_issue')).toHaveLength(0);

    // The person who asked approves; a second click (a double-click, or Slack retrying) decides nothing more.
    await click(ANA, message, 'threadwise_approve', approvalId);
    await click(ANA, message, 'threadwise_approve', approvalId);
    const answers = await h.answers(CHANNEL, ts, 1, 20_000);
    expect(answers.at(-1)).toContain('Filed it: PROJ-4.');
    expect(callsTo(state, 'create_issue')).toHaveLength(1);
    expect(toolResultsIn(h.model.requests[1]!)[0]).toContain('PROJ-4');

    const decided = await redrawnShowing(ts, message.ts, `Approved by <@${ANA}>`);
    expect(JSON.stringify(decided.blocks)).not.toContain('threadwise_approve');

    // The run's record (written as the run ends, just after the answer): what was asked, who decided, the result.
    const recorded = async () =>
      rowsOf<{ kind: string; name: string; arguments: Record<string, unknown> }>(
        await h.database.db.execute(sql`select kind, name, arguments from run_steps where name = 'tracker__create_issue' order by id`),
      );
    const steps = await eventually(async () => {
      const rows = await recorded();
      return rows.length >= 3 && rows;
    }, { timeoutMs: 5_000 });
    expect(steps.map((step) => step.kind)).toEqual(['approval_request', 'approval_decision', 'tool']);
    expect(steps[0]!.arguments).toMatchObject({ title: 'Login fails after SSO' });
    expect(steps[1]!.arguments).toMatchObject({ decision: 'approved', by: 'Ana' });
  });

  it('does not run on Deny; the model is told who denied it and answers without it', async () => {
    h.model.enqueue(
      { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Login fails' } }] },
      { text: 'Understood — I did not file it.' },
    );
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> file this as a bug` });
    const { message, approvalId } = await approvalMessage(ts);
    await click(ANA, message, 'threadwise_deny', approvalId);

    const answers = await h.answers(CHANNEL, ts, 1, 20_000);
    expect(answers.at(-1)).toContain('I did not file it');
    expect(callsTo(state, 'create_issue')).toHaveLength(0);
    expect(toolResultsIn(h.model.requests[1]!)[0]).toMatch(/^Error: Ana denied this call to tracker__create_issue at \d\d:\d\d/);
    await redrawnShowing(ts, message.ts, `Denied by <@${ANA}>`);
  });

  it('folds a long argument and shows it whole in a modal on "Show full arguments", for anyone in the thread', async () => {
    const description = `Steps:\n${Array.from({ length: 120 }, (_, i) => `${i + 1}. click <Save> & wait`).join('\n')}\nThe end.`;
    h.model.enqueue({ toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Long one', description } }] }, { text: 'Not filed.' });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> file this as a bug` });
    const { message, approvalId } = await approvalMessage(ts);
    const shown = JSON.stringify(message.blocks);
    expect(shown).not.toContain('The end.');
    expect(shown).toMatch(/more characters: \*Show full arguments\* above/);

    await click(BEN, message, 'threadwise_approval_details', approvalId);
    await h.slack.waitFor((fake) => fake.callsTo('views.open').length === 1, 10_000);
    const opened = h.slack.callsTo('views.open')[0]!;
    expect(opened.outcome ?? 'ok').toBe('ok');
    const modal = JSON.stringify(opened.body.view);
    expect(modal).toContain('120. click &lt;Save&gt; &amp; wait');
    expect(modal).toContain('The end.');
    expect(callsTo(state, 'create_issue')).toHaveLength(0);

    await click(ANA, message, 'threadwise_deny', approvalId);
    await h.answers(CHANNEL, ts, 1, 20_000);
    expect(callsTo(state, 'create_issue')).toHaveLength(0);
  });

  it('lets an admin decide for someone else', async () => {
    fileBugThenAnswer();
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> file it` });
    const { message, approvalId } = await approvalMessage(ts);
    await click('U0ADMIN', message, 'threadwise_approve', approvalId);
    await h.answers(CHANNEL, ts, 1, 20_000);
    expect(callsTo(state, 'create_issue')).toHaveLength(1);
  });
});

describe('a call nobody decides', () => {
  it('expires: the message says so, nothing runs, and the model is told it was not approved', async () => {
    h.model.enqueue({ toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Login fails' } }] }, { text: 'The request expired; ask again if you still want it filed.' });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> file this as a bug` });
    const { message } = await approvalMessage(ts);
    // As if APPROVAL_TIMEOUT_MINUTES had passed.
    await h.database.db.execute(sql`update approvals set expires_at = now() - interval '1 second' where status = 'pending'`);

    const answers = await h.answers(CHANNEL, ts, 1, 20_000);
    expect(answers.at(-1)).toContain('The request expired');
    expect(callsTo(state, 'create_issue')).toHaveLength(0);
    expect(toolResultsIn(h.model.requests[1]!)[0]).toMatch(/^Error: Nobody approved this call to tracker__create_issue within \d+ minutes/);
    const expired = await redrawnShowing(ts, message.ts, 'Expired at');
    expect(JSON.stringify(expired.blocks)).not.toContain('threadwise_approve');
  });
});

describe('a read the operator marked autoApprove', () => {
  it('runs without asking', async () => {
    h.model.enqueue({ toolCalls: [{ name: 'tracker__get_issue', arguments: { key: 'PROJ-1' } }] }, { text: 'PROJ-1 is in progress.' });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> what is PROJ-1's status?` });
    const answers = await h.answers(CHANNEL, ts, 1, 20_000);
    expect(answers.at(-1)).toContain('PROJ-1 is in progress.');
    expect(callsTo(state, 'get_issue')).toHaveLength(1);
    expect(h.slack.botMessages(CHANNEL, ts).some((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_approve'))).toBe(false);
    expect(toolResultsIn(h.model.requests[1]!)[0]).toContain('Login page times out');
  });
});

describe('a server that fails', () => {
  it('gives the model a sentence naming the server, and the answer goes on', async () => {
    await tracker.stop();
    try {
      h.model.enqueue({ toolCalls: [{ name: 'tracker__get_issue', arguments: { key: 'PROJ-2' } }] }, { text: 'The tracker is not answering right now.' });
      const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> status of PROJ-2?` });
      const answers = await h.answers(CHANNEL, ts, 1, 30_000);
      expect(answers.at(-1)).toContain('not answering');
      expect(toolResultsIn(h.model.requests[1]!)[0]).toMatch(/^Error: .*tracker/);
    } finally {
      await tracker.restart();
    }
  });

  it('is named in /healthz when it is down, and the bot stays healthy', async () => {
    const response = await fetch(`http://127.0.0.1:${h.app.port}/healthz`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ok: boolean; mcp: Array<{ name: string; state: string }> };
    expect(body.ok).toBe(true);
    expect(body.mcp.find((server) => server.name === 'gone')?.state).not.toBe('ready');
    expect(body.mcp.find((server) => server.name === 'odd')?.state).toBe('ready');
  });
});

describe('/ask tools', () => {
  it('lists the server and marks which tools ask for approval, and names the server that is down with its URL', async () => {
    // The tracker was stopped and restarted above: once it is connected again.
    const states = async () => ((await (await fetch(`http://127.0.0.1:${h.app.port}/healthz`)).json()) as { mcp: Array<{ name: string; state: string }> }).mcp;
    await expect.poll(async () => (await states()).find((server) => server.name === 'tracker')?.state, { timeout: 20_000 }).toBe('ready');
    await h.ask({ text: 'tools' });
    await h.slack.waitFor(() => h.responses.length > 0, 10_000);
    const text = String(h.responses.at(-1)?.text);
    expect(text).toContain('*tracker* — connected: 3 tools');
    expect(text).toMatch(/`create_issue` — _asks for approval first_/);
    expect(text).toMatch(/`get_issue`: /);
    expect(text).toMatch(/\*gone\* — :warning: down since <!date\^\d+\^[^>]+>: connection refused \(`http:\/\/127\.0\.0\.1:\d+\/mcp`\); next try <!date/);
  });
});

describe('secrets', () => {
  it('never logs the token from mcp.json', () => {
    expect(h.logs.join('\n')).not.toContain('tracker-secret-token-42');
  });
});
