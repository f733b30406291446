/**
 * Per-person sign-in end to end, against an in-process OAuth authorization server and an MCP server that requires
 * its bearer tokens (test/fakes/oauth/oauth-world.ts), on every database driver: the agent stops for a sign-in, the
 * run parks, only the speaker gets a private Connect prompt, the sign-in (followed with fetch) comes back through
 * the callback, the run is claimed once and its waiting call runs with that person's token. Two people in one
 * thread each use their own; a replayed state is refused; an expired token is refreshed without a prompt; a revoked
 * grant asks again; Disconnect forgets the grant.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { runAgentTurn, type ParkedTurn } from '../../../src/agent/run-agent-turn';
import { isSignInRequired, type SignInRequired } from '../../../src/core/sign-in';
import { createPersonalServers, parseMcpConfig, type PersonalServers } from '../../../src/mcp';
import { parkForSignIn, signInSteps, signInCalls } from '../../../src/runs/park-for-sign-in';
import { createConnectPrompter } from '../../../src/slack/connect-prompt';
import { createOAuthCallback } from '../../../src/slack/oauth-callback';
import type { Database, DatabaseHandle } from '../../../src/store/database';
import { createOAuthStore } from '../../../src/store/grant-store';
import { claimNextRun, enqueueRun, getRun, type RunRow } from '../../../src/store/run-store';
import { completeSignIn, completedSignInsOf, consumeSignIn, createSignIn, declineSignIn, parkRunForSignIn } from '../../../src/store/sign-in-store';
import { upsertThread, type ThreadRow } from '../../../src/store/thread-store';
import { createTokenCipher, type TokenCipher } from '../../../src/store/token-cipher';
import { createExternalTool } from '../../../src/tools/external-tool';
import { fakeModel, loopInput } from '../../agent/loop-fixtures';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/fake-openai';
import { startOAuthWorld, type OAuthWorld } from '../../fakes/oauth/oauth-world';
import { testDatabases } from '../../support/databases';
import { memoryLogger } from '../support';

let TEAM = 'T0TEAM';
let teams = 0;
const ANA = 'U0ANA';
const BEN = 'U0BEN';
const REDIRECT = 'http://localhost:3000/oauth/callback';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-oauth-test' });
});
afterAll(() => fake.close());

for (const database of testDatabases()) {
  describe(`per-person sign-in (${database.label})`, () => {
    let handle: DatabaseHandle;
    let db: Database;
    let cipher: TokenCipher;
    let world: OAuthWorld;
    let personal: PersonalServers;
    let log: ReturnType<typeof memoryLogger>;
    let woken: number;
    let thread: ThreadRow;
    let callback: ReturnType<typeof createOAuthCallback>;
    let prompts: Array<{ channel: string; user: string; thread_ts?: string; text: string; blocks?: unknown }>;

    // One database per suite (opening one is the slow part); each test has its own team, thread and servers.
    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
      cipher = createTokenCipher({ current: randomBytes(32) });
    }, 120_000);
    afterAll(() => handle.close());

    beforeEach(async () => {
      TEAM = `T0TEAM${++teams}`;
      world = await startOAuthWorld();
      log = memoryLogger();
      woken = 0;
      prompts = [];
      await db.execute(sql`delete from oauth_servers`); // each test starts before anyone ever connected
      const store = createOAuthStore(db, cipher);
      const parsed = parseMcpConfig(JSON.stringify({ mcpServers: { tickets: { url: world.mcpUrl, auth: 'oauth', approval: 'auto' } } }), {}, 'mcp.json');
      if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
      personal = await createPersonalServers(parsed.config, { store, redirectUrl: REDIRECT, logger: log.logger, connectTimeoutMs: 10_000 });
      callback = createOAuthCallback({
        servers: personal.servers,
        consume: (state) => consumeSignIn(db, cipher, state),
        decline: (state) => declineSignIn(db, state),
        exchange: (server, key, code, codeVerifier) => personal.finishSignIn(server, key, code, codeVerifier),
        complete: (signIn) => completeSignIn(db, signIn),
        onRunResumable: () => woken++,
        logger: log.logger,
      });
      thread = await upsertThread(db, { channelId: 'C0THREAD', threadTs: `1700000000.${String(teams).padStart(6, '0')}`, teamId: TEAM });
      fake.reset();
    });

    afterEach(async () => {
      await personal.close();
      await world.close();
    });

    /** The run's tools as the lead's toolsFor(channel, { speaker }) builds them: per-person tools bound to the speaker. */
    const toolsFor = (run: RunRow) =>
      personal.tools('C0THREAD').map((tool) =>
        createExternalTool({
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters,
          server: tool.server,
          action: tool.tool,
          needsApproval: tool.needsApproval,
          call: async (args, { signal, maxChars }) => {
            const result = await personal.call(tool.name, args, { as: { teamId: TEAM, userId: run.triggerUserId! }, runId: run.id, signal, maxChars });
            return { text: result.text, images: [] };
          },
        }),
      );

    const startRun = async (userId: string, ts: string) => {
      await enqueueRun(db, { threadId: thread.id, triggerTs: ts, triggerUserId: userId, teamId: TEAM });
      const run = await claimNextRun(db, 'replica-a', 30_000);
      if (!run) throw new Error('no run to claim');
      return run;
    };

    /** One attempt of the run's agent: fresh or resumed from its parked turn. */
    const attempt = async (run: RunRow) => {
      await personal.reload(); // the lead's hook: fresh tool lists for each attempt
      return runAgentTurn(loopInput({ model: fakeModel(fake), tools: toolsFor(run), ...(run.parkedState ? { resume: run.parkedState as ParkedTurn } : {}) }).input);
    };

    const park = async (run: RunRow, awaiting: NonNullable<Awaited<ReturnType<typeof runAgentTurn>>['awaiting']>) =>
      parkForSignIn(
        {
          run,
          thread,
          channel: { retireDrafts: async () => true, status: { set: async () => {}, clear: async () => {} } },
          ledger: { drafts: async () => [] },
          signIns: { parkForSignIn: (request) => parkRunForSignIn(db, request) },
          prompt: createConnectPrompter({ chat: { postEphemeral: async (args) => void prompts.push(args) } }),
          costs: {},
          logger: log.logger,
        },
        awaiting,
      );

    /** The person signs in at the server: the test authorization server approves for `as`; the browser lands on the callback. */
    const signIn = async (authorizationUrl: string, as: string) => {
      world.signInAs(as);
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      expect(response.status).toBe(302);
      const landing = new URL(response.headers.get('location')!);
      expect(`${landing.origin}${landing.pathname}`).toBe(REDIRECT);
      return { code: landing.searchParams.get('code')!, state: landing.searchParams.get('state')! };
    };

    const urlOf = (prompt: { blocks?: unknown }) => {
      const actions = (prompt.blocks as Array<{ type: string; elements?: Array<{ url?: string }> }>).find((block) => block.type === 'actions')!;
      return actions.elements![0]!.url!;
    };

    const signInError = async (call: Promise<unknown>): Promise<SignInRequired> => {
      const error = await call.then(() => undefined, (e: unknown) => e);
      if (!isSignInRequired(error)) throw new Error(`expected SignInRequired, got ${String(error)}`);
      return error;
    };

    /** Ana connects (the whole flow once), so the server's tools are known; returns her resumed run's answer. */
    const anaConnects = async () => {
      const run = await startRun(ANA, '1700000000.000200');
      fake.enqueue({ toolCalls: [{ name: 'tickets__connect', arguments: {} }] });
      const first = await attempt(run);
      expect(first.stop).toBe('awaiting_approval');
      await park(run, first.awaiting!);
      const { code, state } = await signIn(urlOf(prompts.at(-1)!), 'ana');
      const page = await callback({ code, state });
      expect(page.status).toBe(200);
      const resumed = await claimNextRun(db, 'replica-b', 30_000);
      fake.enqueue({ text: 'Connected; what should I look for?' });
      const second = await attempt(resumed!);
      await db.execute(sql`update runs set status = 'done', lease_owner = null where id = ${run.id}`);
      return { run, page, state, second };
    };

    it('prompts only the speaker, parks the run, and resumes it exactly once with their token after the callback', async () => {
      expect(personal.tools('C0THREAD').map((tool) => tool.name)).toEqual(['tickets__connect']);
      const run = await startRun(ANA, '1700000000.000200');
      fake.enqueue({ toolCalls: [{ name: 'tickets__connect', arguments: {} }] });
      const first = await attempt(run);

      expect(first.stop).toBe('awaiting_approval');
      const waiting = signInCalls(first.awaiting!);
      expect(waiting).toHaveLength(1);
      expect(waiting[0]!.signIn).toMatchObject({ server: 'tickets', teamId: TEAM, userId: ANA });
      // Nothing of the link is in what is saved with the run.
      expect(JSON.stringify(first.awaiting!.turn)).not.toContain('code_challenge');
      const steps = signInSteps(first.awaiting!.turn, { requested: waiting });
      expect(JSON.stringify(steps)).not.toContain('http');

      expect(await park(run, first.awaiting!)).toEqual({ status: 'waiting_approval' });
      expect((await getRun(db, run.id))!.status).toBe('waiting_approval');
      expect(prompts).toHaveLength(1);
      expect(prompts[0]).toMatchObject({ channel: 'C0THREAD', user: ANA, thread_ts: thread.threadTs, text: 'To use Tickets I need you to connect your account.' });
      const authorizationUrl = new URL(urlOf(prompts[0]!));
      expect(authorizationUrl.origin).toBe(world.asUrl);
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizationUrl.searchParams.get('resource')).toBe(world.mcpUrl);
      expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(REDIRECT);
      expect(world.counts.registrations).toBe(1);

      // Nothing to claim while it waits.
      expect(await claimNextRun(db, 'replica-b', 30_000)).toBeUndefined();

      const { code, state } = await signIn(authorizationUrl.toString(), 'ana');
      const page = await callback({ code, state });
      expect(page.status).toBe(200);
      expect(page.html).toContain('Connected — you can go back to Slack');
      expect(woken).toBe(1);
      expect((await getRun(db, run.id))!.status).toBe('resumable');
      expect(await completedSignInsOf(db, run.id)).toEqual([{ callId: waiting[0]!.callId, server: 'tickets', userId: ANA, at: expect.any(Date) }]);

      // Two replicas look for work: exactly one gets the run.
      const claims = await Promise.all([claimNextRun(db, 'replica-b', 30_000), claimNextRun(db, 'replica-c', 30_000)]);
      const resumed = claims.filter((claim) => claim !== undefined);
      expect(resumed.map((claim) => claim!.id)).toEqual([run.id]);

      fake.enqueue({ toolCalls: [{ name: 'tickets__whoami', arguments: {} }] });
      fake.enqueue({ text: 'You are ana on Tickets.' });
      // The resumed attempt's tools are built afresh: the server's real tools are offered now.
      expect(personal.tools('C0THREAD').map((tool) => tool.name)).toEqual(['tickets__search_issues', 'tickets__whoami', 'tickets__connect']);
      const second = await attempt(resumed[0]!);
      expect(second).toMatchObject({ stop: 'answered', answer: 'You are ana on Tickets.' });
      const connectResult = (fake.requests[1] as unknown as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'tool')!;
      expect(connectResult.content).toContain('connected');
      expect(world.calls).toEqual([{ user: 'ana', tool: 'whoami', args: {} }]);
    });

    it('two people in one thread: each call runs with the speaker\u2019s own token, and Ben gets his own prompt', async () => {
      await anaConnects();
      const ana = await personal.call('tickets__search_issues', { query: 'login' }, { as: { teamId: TEAM, userId: ANA } });
      expect(ana.text).toContain('issues for ana');

      // Ben asks a follow-up in the same thread: not connected, so he is asked — Ana's grant is never used for him.
      const run = await startRun(BEN, '1700000000.000300');
      fake.enqueue({ toolCalls: [{ name: 'tickets__search_issues', arguments: { query: 'billing' } }] });
      const first = await attempt(run);
      expect(signInCalls(first.awaiting!)[0]!.signIn.userId).toBe(BEN);
      await park(run, first.awaiting!);
      expect(prompts.at(-1)!.user).toBe(BEN);
      expect(world.calls.filter((call) => call.args.query === 'billing')).toEqual([]);

      const { code, state } = await signIn(urlOf(prompts.at(-1)!), 'ben');
      expect((await callback({ code, state })).status).toBe(200);
      const resumed = await claimNextRun(db, 'replica-b', 30_000);
      fake.enqueue({ text: 'Found TCK-1.' });
      expect(await attempt(resumed!)).toMatchObject({ stop: 'answered' });
      expect(world.calls.filter((call) => call.tool === 'search_issues')).toEqual([
        { user: 'ana', tool: 'search_issues', args: { query: 'login' } },
        { user: 'ben', tool: 'search_issues', args: { query: 'billing' } },
      ]);
      // And Ana still calls as Ana.
      await personal.call('tickets__whoami', {}, { as: { teamId: TEAM, userId: ANA } });
      expect(world.calls.at(-1)).toEqual({ user: 'ana', tool: 'whoami', args: {} });
    });

    it('refuses a replayed, a foreign and an expired state with a sentence', async () => {
      const { state } = await anaConnects();
      const replay = await callback({ code: 'code-whatever', state });
      expect(replay.status).toBe(409);
      expect(replay.html).toContain('already used');
      const foreign = await callback({ code: 'code-whatever', state: 'not-a-state-threadwise-issued' });
      expect(foreign.status).toBe(400);
      expect(foreign.html).toContain('not one of mine');
      await createSignIn(db, cipher, { teamId: TEAM, userId: BEN, server: 'tickets', state: 'stale-state', codeVerifier: 'v'.repeat(43), ttlMs: -1_000 });
      const stale = await callback({ code: 'code-whatever', state: 'stale-state' });
      expect(stale.status).toBe(410);
      expect(stale.html).toContain('expired');
      expect(world.counts.codeExchanges).toBe(1);
    });

    it('refreshes an expired access token without asking again', async () => {
      await anaConnects();
      const prompted = prompts.length;
      world.expireAccessTokens('ana');
      const result = await personal.call('tickets__whoami', {}, { as: { teamId: TEAM, userId: ANA } });
      expect(result.text).toContain('you are ana');
      expect(world.counts.refreshes).toBe(1);
      // A fresh process (a restart, another replica) reads the refreshed tokens from the database.
      await personal.close();
      world.expireAccessTokens('ana');
      const store = createOAuthStore(db, cipher);
      const parsed = parseMcpConfig(JSON.stringify({ mcpServers: { tickets: { url: world.mcpUrl, auth: 'oauth' } } }), {}, 'mcp.json');
      personal = await createPersonalServers((parsed as { ok: true; config: Parameters<typeof createPersonalServers>[0] }).config, { store, redirectUrl: REDIRECT, logger: log.logger });
      expect((await personal.call('tickets__whoami', {}, { as: { teamId: TEAM, userId: ANA } })).text).toContain('you are ana');
      expect(world.counts.refreshes).toBe(2);
      expect(prompts.length).toBe(prompted);
    });

    it('asks again when the grant was revoked at the server', async () => {
      await anaConnects();
      world.revokeUser('ana');
      const error = await signInError(personal.call('tickets__whoami', {}, { as: { teamId: TEAM, userId: ANA } }));
      expect(error.prompt).toMatchObject({ server: 'tickets', userId: ANA });
      expect(await personal.isConnected({ teamId: TEAM, userId: ANA }, 'tickets')).toBe(false);
      // Signing in again works and calls run as Ana again.
      const { code, state } = await signIn(error.prompt.authorizationUrl, 'ana');
      expect((await callback({ code, state })).status).toBe(200);
      expect((await personal.call('tickets__whoami', {}, { as: { teamId: TEAM, userId: ANA } })).text).toContain('you are ana');
    });

    it('Disconnect forgets the grant: the next call asks to connect again', async () => {
      await anaConnects();
      expect(await personal.isConnected({ teamId: TEAM, userId: ANA }, 'tickets')).toBe(true);
      expect(await personal.disconnect({ teamId: TEAM, userId: ANA }, 'tickets')).toBe(true);
      expect(await personal.isConnected({ teamId: TEAM, userId: ANA }, 'tickets')).toBe(false);
      await signInError(personal.call('tickets__whoami', {}, { as: { teamId: TEAM, userId: ANA } }));
    });

    it('a person who declines at the server: the run carries on and the call says they did not connect', async () => {
      const run = await startRun(BEN, '1700000000.000400');
      fake.enqueue({ toolCalls: [{ name: 'tickets__connect', arguments: {} }] });
      await park(run, (await attempt(run)).awaiting!);
      const state = new URL(urlOf(prompts.at(-1)!)).searchParams.get('state')!;
      const page = await callback({ state, error: 'access_denied' });
      expect(page.status).toBe(200);
      expect(page.html).toContain('not connected');
      const resumed = await claimNextRun(db, 'replica-b', 30_000);
      fake.enqueue({ text: 'I could not use Tickets.' });
      await attempt(resumed!);
      const toolResult = (fake.requests.at(-1) as unknown as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'tool')!;
      expect(toolResult.content).toContain('did not');
      expect(prompts).toHaveLength(1);
    });

    it('keeps no token unencrypted in any table, and logs none', async () => {
      await anaConnects();
      await personal.call('tickets__whoami', {}, { as: { teamId: TEAM, userId: ANA } });
      world.expireAccessTokens('ana');
      await personal.call('tickets__whoami', {}, { as: { teamId: TEAM, userId: ANA } });
      const tokens = world.issued();
      expect(tokens.length).toBeGreaterThanOrEqual(4);
      const dump = await dumpAllTables(db);
      expect(dump).toContain('tokens_sealed');
      for (const token of tokens) expect(dump).not.toContain(token);
      for (const line of log.raw) for (const token of tokens) expect(line).not.toContain(token);
    });
  });
}

/** Every row of every table in the public schema, as text. */
async function dumpAllTables(db: Database): Promise<string> {
  const result = await db.execute(sql`select table_name from information_schema.tables where table_schema = 'public'`);
  const tables = ((result as { rows?: Array<{ table_name: string }> }).rows ?? (result as unknown as Array<{ table_name: string }>)).map((row) => row.table_name);
  let text = '';
  for (const table of tables) {
    const rows = await db.execute(sql.raw(`select * from "${table}"`));
    text += `${table} ${JSON.stringify((rows as { rows?: unknown[] }).rows ?? rows)}\n`;
    if (table === 'oauth_grants') text += 'tokens_sealed\n';
  }
  return text;
}
