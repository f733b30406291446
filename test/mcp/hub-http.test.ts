/**
 * The hub against real MCP servers written with the SDK, served over HTTP on loopback: Streamable HTTP with
 * sessions, the older SSE protocol, outages, expired sessions, timeouts, and credentials that never reach a log.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createMcpHub, isMcpToolFailure, type McpHub, type McpToolFailure } from '../../src/mcp';
import { startMcpHttpHost, type McpHttpHost } from '../fakes/mcp/http-host';
import { buildMisbehavingServer, createMisbehavingState, MALFORMED_TOOLS } from '../fakes/mcp/misbehaving';
import { validateChatRequest } from '../fakes/openai-validate';
import { buildTrackerServer, callsTo, createTrackerState } from '../fakes/mcp/tracker';
import { FAST_RETRY, httpTransport, memoryLogger, serverEntry } from './support';
import { closedPort } from '../support/closed-port';

const TOKEN = 'trk-4f1b9c2e7d3a';
const headers = { Authorization: `Bearer ${TOKEN}` };

let hubs: McpHub[] = [];
let hosts: McpHttpHost[] = [];
afterEach(async () => {
  await Promise.all(hubs.map((hub) => hub.close()));
  await Promise.all(hosts.map((host) => host.close()));
  hubs = [];
  hosts = [];
});

async function host(...args: Parameters<typeof startMcpHttpHost>) {
  const started = await startMcpHttpHost(...args);
  hosts.push(started);
  return started;
}

async function hub(...[config, options]: Parameters<typeof createMcpHub>) {
  // The first attempts are awaited in full (the default waits 2 s), so each test starts from a settled state.
  const created = await createMcpHub(config, { startWaitMs: 60_000, ...options });
  hubs.push(created);
  return created;
}

async function failure(call: Promise<unknown>): Promise<McpToolFailure> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isMcpToolFailure(error)) throw new Error(`expected an McpToolFailure, got ${String(error)}`);
  return error;
}

describe('MCP over HTTP', () => {
  it('connects, lists and calls tools over Streamable HTTP, sending the configured headers on every request', async () => {
    const tracker = createTrackerState();
    const server = await host({ createServer: () => buildTrackerServer(tracker), requireHeaders: headers });
    const { logger, messages } = memoryLogger();
    const mcp = await hub({ servers: [serverEntry('tracker', httpTransport(server.url, headers), { autoApprove: ['search_issues'] })], secrets: [TOKEN] }, { logger });

    expect(mcp.tools('C1').map((t) => [t.name, t.needsApproval, t.hints.readOnly])).toEqual([
      ['tracker__search_issues', false, true],
      ['tracker__get_issue', true, true],
      ['tracker__create_issue', true, false],
    ]);
    const result = await mcp.call('tracker__search_issues', { query: 'login' });
    expect(result.isError).toBe(false);
    expect(result.text).toContain('PROJ-1 [in_progress] Login page times out');
    expect(callsTo(tracker, 'search_issues')).toEqual([{ tool: 'search_issues', args: { query: 'login' } }]);
    expect(server.requests.length).toBeGreaterThan(2);
    for (const request of server.requests) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(mcp.health()).toEqual({ servers: [expect.objectContaining({ name: 'tracker', state: 'ready', transport: 'streamable-http', tools: 3 })] });
    expect(messages('info')).toEqual(['MCP server "tracker" connected (3 tools, streamable-http)']);
  });

  it('falls back to the older HTTP+SSE protocol for a server that refuses Streamable HTTP', async () => {
    const tracker = createTrackerState();
    const server = await host({ createServer: () => buildTrackerServer(tracker), legacySse: true, requireHeaders: headers });
    const mcp = await hub({ servers: [serverEntry('legacy', httpTransport(server.url, headers))], secrets: [] }, { logger: memoryLogger().logger });

    expect(mcp.health().servers[0]).toMatchObject({ state: 'ready', transport: 'sse', tools: 3 });
    const created = await mcp.call('legacy__create_issue', { title: 'Export drops accents' });
    expect(created.text).toContain('Created PROJ-4: Export drops accents');
    expect(callsTo(tracker, 'create_issue')).toHaveLength(1);
    expect(server.requests.some((r) => r.method === 'GET' && r.path === '/sse')).toBe(true);
  });

  it('starts afresh when an older SSE server restarts (its protocol cannot recover a session)', async () => {
    const tracker = createTrackerState();
    const server = await host({ createServer: () => buildTrackerServer(tracker), legacySse: true });
    const { logger, messages } = memoryLogger();
    const mcp = await hub({ servers: [serverEntry('legacy', httpTransport(server.url))], secrets: [] }, { logger, retry: FAST_RETRY });

    await server.stop();
    await vi.waitFor(() => expect(mcp.health().servers[0]!.state).toBe('down'), { timeout: 10_000 });
    await server.restart();
    await vi.waitFor(() => expect(mcp.health().servers[0]).toMatchObject({ state: 'ready', transport: 'sse' }), { timeout: 10_000 });

    expect((await mcp.call('legacy__search_issues', { query: 'login' })).text).toContain('PROJ-1');
    expect(callsTo(tracker, 'search_issues')).toHaveLength(1);
    expect(messages('warn')).toHaveLength(1);
  });

  it('starts a new session when the server forgot the old one (404), and the call reaches the server once', async () => {
    const tracker = createTrackerState();
    const server = await host({ createServer: () => buildTrackerServer(tracker) });
    const { logger, messages } = memoryLogger();
    const mcp = await hub({ servers: [serverEntry('tracker', httpTransport(server.url))], secrets: [] }, { logger });
    await mcp.call('tracker__get_issue', { key: 'PROJ-1' });

    await server.expireSessions();
    const result = await mcp.call('tracker__create_issue', { title: 'After expiry' });

    expect(result.text).toContain('Created PROJ-4: After expiry');
    expect(callsTo(tracker, 'create_issue')).toHaveLength(1);
    expect(server.sessionCount()).toBe(1);
    expect(messages('info')).toContain('MCP server "tracker": its session expired; starting a new one and sending the call again');
    expect(messages('warn')).toEqual([]);
    expect(mcp.health().servers[0]!.state).toBe('ready');
  });

  it('follows a server that changes its tools while connected', async () => {
    const tracker = createTrackerState();
    const servers: Array<ReturnType<typeof buildTrackerServer>> = [];
    const server = await host({
      createServer: () => {
        const built = buildTrackerServer(tracker);
        servers.push(built);
        return built;
      },
    });
    const { logger, messages } = memoryLogger();
    const mcp = await hub({ servers: [serverEntry('tracker', httpTransport(server.url))], secrets: [] }, { logger });
    // The client's notification stream (GET) must be open before the server can announce anything on it.
    await vi.waitFor(() => expect(server.requests.some((r) => r.method === 'GET')).toBe(true), { timeout: 10_000 });

    servers.at(-1)!.registerTool('close_issue', { description: 'Closes an issue.', inputSchema: { key: z.string() } }, async () => ({ content: [] }));

    await vi.waitFor(() => expect(mcp.tools('C1').map((t) => t.name)).toContain('tracker__close_issue'), { timeout: 10_000 });
    expect(messages('info')).toContain('MCP server "tracker" changed its tools (4 now)');
    expect(mcp.health().servers[0]!.tools).toBe(4);
  });

  it('keeps going when a server is down at start: one warning, retried in the background, its tools offered once it answers', async () => {
    const tracker = createTrackerState();
    const server = await host({ createServer: () => buildTrackerServer(tracker) });
    await server.stop();
    const { logger, messages } = memoryLogger();
    const mcp = await hub({ servers: [serverEntry('tracker', httpTransport(server.url))], secrets: [] }, { logger, retry: FAST_RETRY });

    expect(mcp.tools('C1')).toEqual([]);
    expect(mcp.health().servers[0]).toMatchObject({ state: 'down', tools: 0, lastError: 'connection refused' });
    expect(mcp.health().servers[0]!.nextRetryAt).toBeGreaterThan(Date.now() - 1_000);
    const unknown = await failure(mcp.call('tracker__search_issues', { query: 'x' }));
    expect(unknown.code).toBe('mcp_unknown_tool');
    expect(unknown.message).toBe(
      'There is no MCP tool named "tracker__search_issues" (it may have been removed from its server or disabled in mcp.json). The MCP server "tracker" offers no tools right now.',
    );
    await vi.waitFor(() => expect(messages('debug').filter((m) => m.includes('still down')).length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });

    await server.restart();
    await vi.waitFor(() => expect(mcp.health().servers[0]!.state).toBe('ready'), { timeout: 10_000 });
    expect(mcp.tools('C1').map((t) => t.name)).toContain('tracker__search_issues');
    expect((await mcp.call('tracker__search_issues', { query: 'login' })).text).toContain('PROJ-1');
    expect(messages('warn')).toEqual([
      `MCP server "tracker" (${server.url}) cannot be reached at start: connection refused; its tools are offered once it answers, retrying in the background`,
    ]);
    expect(messages('info')).toEqual([expect.stringMatching(/^MCP server "tracker" is back after \d+ s \(3 tools, streamable-http\)$/)]);
  });

  it('an outage after start: every call gets a sentence naming the server, the log gets one line for it, and one when it is back', async () => {
    const tracker = createTrackerState();
    const server = await host({ createServer: () => buildTrackerServer(tracker) });
    const { logger, messages } = memoryLogger();
    const mcp = await hub({ servers: [serverEntry('tracker', httpTransport(server.url))], secrets: [] }, { logger, retry: { ...FAST_RETRY, initialMs: 1_000, maxMs: 1_000, onDemandAfterMs: 60_000 } });

    await server.stop();
    const failures = [];
    for (let i = 0; i < 5; i++) failures.push(await failure(mcp.call('tracker__search_issues', { query: 'login' })));
    expect(failures.map((f) => f.code)).toEqual(Array(5).fill('mcp_server_unavailable'));
    expect(failures[0]!.message).toMatch(
      /^The MCP server "tracker" is not reachable right now \(connection (refused|dropped|reset)\), so tracker__search_issues did not run\. Answer without it and say that this tool is unavailable at the moment\.$/,
    );
    expect(failures[0]).toMatchObject({ server: 'tracker', tool: 'search_issues' });
    expect(messages('warn')).toEqual([expect.stringMatching(/^MCP server "tracker" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) is down: connection (refused|dropped|reset); its tools answer with an error until it is back/)]);
    // The last known tools stay offered, so a thread's history keeps resolving while the server is away.
    expect(mcp.tools('C1')).toHaveLength(3);
    expect(mcp.health().servers[0]).toMatchObject({ state: 'down', tools: 3 });

    await server.restart();
    const quick = await hub({ servers: [serverEntry('probe', httpTransport(server.url))], secrets: [] }, { logger: memoryLogger().logger });
    expect(quick.health().servers[0]!.state).toBe('ready'); // the server is back; our hub finds out on its next attempt
    await vi.waitFor(() => expect(mcp.health().servers[0]!.state).toBe('ready'), { timeout: 15_000 });
    expect((await mcp.call('tracker__search_issues', { query: 'login' })).text).toContain('PROJ-1');
    expect(messages('warn')).toHaveLength(1);
    expect(messages('info').filter((m) => m.includes('is back after'))).toHaveLength(1);
  });

  it('a call that outlasts timeoutSeconds is cancelled on the server and fails with a sentence; the server stays connected', async () => {
    const state = createMisbehavingState();
    const server = await host({ createServer: () => buildMisbehavingServer(state) });
    const mcp = await hub({ servers: [serverEntry('slow', httpTransport(server.url), { timeoutMs: 300 })], secrets: [] }, { logger: memoryLogger().logger });

    const timedOut = await failure(mcp.call('slow__hang', {}));
    expect(timedOut.code).toBe('mcp_timeout');
    expect(timedOut.message).toBe(
      'slow__hang got no answer from the MCP server "slow" within 0.3 s and was cancelled; whether it took effect on the server is unknown. Do not repeat it blindly: answer with what you have and say the outcome is unknown.',
    );
    await vi.waitFor(() => expect(state.cancelled).toBe(1), { timeout: 10_000 });
    expect(mcp.health().servers[0]!.state).toBe('ready');
    expect((await mcp.call('slow__fails', {})).isError).toBe(true);
  });

  it('follows the caller’s abort signal, and tells the server to stop', async () => {
    const state = createMisbehavingState();
    const server = await host({ createServer: () => buildMisbehavingServer(state) });
    const mcp = await hub({ servers: [serverEntry('slow', httpTransport(server.url))], secrets: [] }, { logger: memoryLogger().logger });
    const controller = new AbortController();
    const call = mcp.call('slow__hang', {}, { signal: controller.signal });
    await vi.waitFor(() => expect(state.calls.some((c) => c.tool === 'hang')).toBe(true), { timeout: 10_000 });
    controller.abort(new Error('answer cancelled'));

    const cancelled = await failure(call);
    expect(cancelled.code).toBe('mcp_cancelled');
    expect(cancelled.message).toBe('slow__hang was stopped before it finished: the answer was cancelled or ran out of time.');
    await vi.waitFor(() => expect(state.cancelled).toBe(1), { timeout: 10_000 });
    expect(await failure(mcp.call('slow__hang', {}, { signal: AbortSignal.abort() }))).toMatchObject({ code: 'mcp_cancelled' });
  });

  it('tells a server’s protocol error from a tool’s error result, and refuses arguments that are not an object', async () => {
    const state = createMisbehavingState();
    const server = await host({ createServer: () => buildMisbehavingServer(state) });
    const mcp = await hub({ servers: [serverEntry('bad', httpTransport(server.url))], secrets: [] }, { logger: memoryLogger().logger });

    const refused = await failure(mcp.call('bad__throws', { project: '' }));
    expect(refused.code).toBe('mcp_server_error');
    expect(refused.message).toBe(
      'The MCP server "bad" refused bad__throws: Invalid arguments: "project" is required. Check the arguments against the tool\'s parameters and try again, or answer without it.',
    );
    const reported = await mcp.call('bad__fails', {});
    expect(reported.isError).toBe(true);
    expect(reported.text).toContain('Project NOPE does not exist.');

    expect(await failure(mcp.call('bad__fails', ['a', 'list']))).toMatchObject({
      code: 'mcp_invalid_arguments',
      message: 'bad__fails takes its arguments as a JSON object of named values, not a list.',
    });
    expect(await failure(mcp.call('bad__nope', {}))).toMatchObject({ code: 'mcp_unknown_tool', message: expect.stringContaining('The MCP server "bad" offers: bad__no_schema, bad__bare_object') });
    expect(mcp.health().servers[0]!.state).toBe('ready');
  });

  it('offers a misbehaving server’s tools in a request the model endpoint accepts', async () => {
    const server = await host({ createServer: () => buildMisbehavingServer(createMisbehavingState()) });
    const mcp = await hub({ servers: [serverEntry('bad', httpTransport(server.url))], secrets: [] }, { logger: memoryLogger().logger });
    const request = (tools: Array<{ name: string; description: string; parameters: unknown }>) => ({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'File this as a bug.' }],
      tools: tools.map(({ name, description, parameters }) => ({ type: 'function', function: { name, description, parameters } })),
    });

    const offered = mcp.tools('C1');
    expect(offered).toHaveLength(MALFORMED_TOOLS.length);
    expect(validateChatRequest(request(offered))).toBeUndefined();
    // The same tools as the server listed them would have failed the whole request.
    const raw = MALFORMED_TOOLS.map((t) => ({ name: String(t.name).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64), description: String(t.description), parameters: t.inputSchema ?? {} }));
    expect(validateChatRequest(request(raw))?.message).toMatch(/^Invalid schema for function/);
  });

  it('offers a server only in its channels, and cuts past the model’s tool limit with one clear log line', async () => {
    const server = await host({ createServer: () => buildMisbehavingServer(createMisbehavingState()) });
    const tracker = await host({ createServer: () => buildTrackerServer(createTrackerState()) });
    const { logger, messages } = memoryLogger();
    const mcp = await hub(
      {
        servers: [serverEntry('tracker', httpTransport(tracker.url)), serverEntry('bad', httpTransport(server.url), { channels: ['C0123ABC'] })],
        secrets: [],
      },
      { logger },
    );
    expect(mcp.tools('C999').map((t) => t.server)).toEqual(['tracker', 'tracker', 'tracker']);
    expect(mcp.health('C999').servers.map((s) => s.name)).toEqual(['tracker']);
    expect(mcp.tools('C0123ABC')).toHaveLength(3 + MALFORMED_TOOLS.length);

    const limited = mcp.tools('C0123ABC', { limit: 10 });
    expect(limited.map((t) => t.name)).toEqual([...mcp.tools('C0123ABC').map((t) => t.name)].slice(0, 10));
    mcp.tools('C0123ABC', { limit: 10 });
    const total = 3 + MALFORMED_TOOLS.length;
    expect(messages('warn')).toEqual([
      `MCP: ${total} tools are enabled in channel C0123ABC but the model takes at most 10; offered: the first servers in mcp.json in full, then "bad" 7 of ${MALFORMED_TOOLS.length}. Narrow "channels" or add "disabledTools" in mcp.json to choose which.`,
    ]);
  });

  it('caps a huge result to the size asked for', async () => {
    const server = await host({ createServer: () => buildMisbehavingServer(createMisbehavingState()) });
    const mcp = await hub({ servers: [serverEntry('bad', httpTransport(server.url))], secrets: [] }, { logger: memoryLogger().logger, maxResultChars: 5_000 });
    const huge = await mcp.call('bad__huge', { chars: 200_000 });
    expect(huge.truncated).toBe(true);
    expect(huge.text.length).toBeLessThan(5_600);
    const smaller = await mcp.call('bad__huge', { chars: 200_000 }, { maxChars: 1_000 });
    expect(smaller.text.length).toBeLessThan(1_600);
  });

  it('reports refused credentials in health, and no token reaches a log, a health snapshot or a sentence', async () => {
    const secretKey = 'k3y-0f-the-tracker-7781';
    const tracker = createTrackerState();
    // Refuses the key and quotes it back in the response body.
    const server = await host({ createServer: () => buildTrackerServer(tracker), requireHeaders: { 'x-api-key': 'the-right-one' } });
    // Accepts the key, and a tool's error quotes it.
    const careless = await host({ createServer: () => buildMisbehavingServer(createMisbehavingState()) });
    const port = await closedPort();
    const { logger, raw } = memoryLogger();
    const mcp = await hub(
      {
        servers: [
          serverEntry('tracker', httpTransport(server.url, { 'X-Api-Key': secretKey })),
          serverEntry('gone', httpTransport(`http://127.0.0.1:${port}/mcp?key=${secretKey}`, { Authorization: `Bearer ${TOKEN}` })),
          serverEntry('careless', httpTransport(careless.url, { 'X-Api-Key': secretKey })),
        ],
        secrets: [secretKey, `Bearer ${TOKEN}`, TOKEN],
      },
      { logger },
    );
    expect(mcp.health().servers.map((s) => [s.name, s.state, s.lastError])).toEqual([
      ['tracker', 'down', 'credentials refused (HTTP 401: {"error":"unauthorized","presented":"[redacted]"}); check the headers in mcp.json'],
      ['gone', 'down', 'connection refused'],
      ['careless', 'ready', undefined],
    ]);
    const quoted = await failure(mcp.call('careless__echo_credentials', {}));
    expect(quoted.message).toBe(
      'The MCP server "careless" refused careless__echo_credentials: key [redacted] is not allowed here. Check the arguments against the tool\'s parameters and try again, or answer without it.',
    );
    // The 401 body quoting the key went into the start-up warning, redacted.
    expect(raw.some((line) => line.includes('presented') && line.includes('[redacted]'))).toBe(true);
    const everything = [...raw, JSON.stringify(mcp.health()), quoted.message].join('\n');
    expect(everything).not.toContain(secretKey);
    expect(everything).not.toContain(TOKEN);
    expect(raw.length).toBeGreaterThan(0);
  });
});
