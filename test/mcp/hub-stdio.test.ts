/**
 * The hub against MCP servers started as child processes over stdio (node + tsx running test/fakes/mcp/
 * stdio-server.ts, the way `npx some-mcp-server` runs): calls, crashes, start-up failures, the environment they
 * get, stderr that never leaks a token, and a process tree that is gone once the hub is closed.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpHub, isMcpToolFailure, type McpHub, type McpHubOptions } from '../../src/mcp';
import type { McpServerConfig } from '../../src/mcp';
import { fakeStdioServer } from '../fakes/mcp/stdio-command';
import { FILES_READ_ONLY_TOOLS } from '../fakes/mcp/files';
import { FAST_RETRY, httpTransport, memoryLogger, serverEntry } from './support';
import { closedPort } from '../support/closed-port';

let dir: string;
let hubs: McpHub[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threadwise-mcp-stdio-'));
});
afterEach(async () => {
  await Promise.all(hubs.map((hub) => hub.close()));
  hubs = [];
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
const file = (name: string) => join(dir, `${++files}-${name}`);

async function hub(servers: McpServerConfig[], options: Partial<McpHubOptions> & { secrets?: string[] } = {}) {
  const { secrets = [], ...rest } = options;
  // The first attempts are awaited in full here (the default waits 2 s), so each test starts from a settled state.
  const created = await createMcpHub({ servers, secrets }, { logger: memoryLogger().logger, closeGraceMs: 500, startWaitMs: 60_000, ...rest });
  hubs.push(created);
  return created;
}

async function pids(path: string): Promise<{ server: number; child: number }> {
  return JSON.parse(await readFile(path, 'utf8')) as { server: number; child: number };
}

/** Gone: no such process, or only its zombie (dead, waiting to be reaped by whoever adopted it). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return ['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!);
  } catch {
    return true;
  }
}

function commandLine(transport: { command: string; args: string[] }): string {
  return [transport.command, ...transport.args].join(' ');
}

async function callLog(path: string): Promise<Array<{ tool: string; args: unknown }>> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { tool: string; args: unknown });
}

describe('MCP over stdio', () => {
  it('starts the program, lists its tools and calls them; each call reaches the server once', async () => {
    const log = file('calls.jsonl');
    const mcp = await hub([serverEntry('tracker', fakeStdioServer('tracker', { FAKE_MCP_CALL_LOG: log }), { autoApprove: ['search_issues', 'get_issue'] })]);

    expect(mcp.health().servers[0]).toMatchObject({ state: 'ready', transport: 'stdio', tools: 3 });
    expect(mcp.tools('C1').map((t) => [t.name, t.needsApproval])).toEqual([
      ['tracker__search_issues', false],
      ['tracker__get_issue', false],
      ['tracker__create_issue', true],
    ]);
    const created = await mcp.call('tracker__create_issue', { title: 'Crash on save', labels: ['bug'] });
    expect(created.text).toContain('Created PROJ-4: Crash on save — https://tracker.example.test/browse/PROJ-4');
    const missing = await mcp.call('tracker__get_issue', { key: 'PROJ-99' });
    expect(missing).toMatchObject({ isError: true, text: expect.stringContaining('Issue PROJ-99 does not exist.') });
    expect(await callLog(log)).toEqual([
      { tool: 'create_issue', args: { title: 'Crash on save', labels: ['bug'] } },
      { tool: 'get_issue', args: { key: 'PROJ-99' } },
    ]);
  });

  it('ends the whole process tree on close, the server’s own children too', async () => {
    const pidFile = file('pids.json');
    const mcp = await hub([serverEntry('tracker', fakeStdioServer('tracker', { FAKE_MCP_PID_FILE: pidFile }))]);
    const { server, child } = await pids(pidFile);
    expect(isGone(server)).toBe(false);
    expect(isGone(child)).toBe(false);

    await mcp.close();

    expect(isGone(server)).toBe(true);
    expect(isGone(child)).toBe(true);
    expect(mcp.health().servers[0]!.state).toBe('closed');
  });

  it('ends a tree that ignores stdin closing and SIGTERM, with SIGKILL', async () => {
    const pidFile = file('pids.json');
    const mcp = await hub([serverEntry('stubborn', fakeStdioServer('tracker', { FAKE_MCP_PID_FILE: pidFile, FAKE_MCP_STUBBORN: '1' }))]);
    const { server, child } = await pids(pidFile);

    await mcp.close();

    expect(isGone(server)).toBe(true);
    expect(isGone(child)).toBe(true);
  });

  it('does not hold up the start for a slow server: it joins when it is ready', async () => {
    const { logger, messages } = memoryLogger();
    const mcp = await hub([serverEntry('tracker', fakeStdioServer('tracker'))], { logger, startWaitMs: 50 });
    expect(mcp.health().servers[0]!.state).toBe('connecting');
    expect(mcp.tools('C1')).toEqual([]);

    await vi.waitFor(() => expect(mcp.tools('C1')).toHaveLength(3), { timeout: 15_000 });
    expect(mcp.health().servers[0]!.state).toBe('ready');
    expect(messages('warn')).toEqual([]);
  });

  it('ends a program that is still starting when the hub closes', async () => {
    const pidFile = file('pids.json');
    const mcp = await hub([serverEntry('tracker', fakeStdioServer('tracker', { FAKE_MCP_PID_FILE: pidFile }))], { startWaitMs: 0 });
    const { server, child } = await vi.waitFor(() => pids(pidFile), { timeout: 15_000 });

    await mcp.close();

    expect(isGone(server)).toBe(true);
    expect(isGone(child)).toBe(true);
  });

  it('notices a crash, fails calls with a sentence, starts the program again and logs the outage once', async () => {
    const pidFile = file('pids.json');
    const { logger, messages } = memoryLogger();
    const mcp = await hub([serverEntry('tracker', fakeStdioServer('tracker', { FAKE_MCP_PID_FILE: pidFile }))], {
      logger,
      retry: { ...FAST_RETRY, initialMs: 300, maxMs: 300, onDemandAfterMs: 60_000 },
    });
    const first = await pids(pidFile);

    process.kill(first.server, 'SIGKILL');
    await vi.waitFor(() => expect(mcp.health().servers[0]!.state).not.toBe('ready'), { timeout: 10_000 });
    const failed = await mcp.call('tracker__search_issues', { query: 'x' }).catch((e: unknown) => e);
    expect(isMcpToolFailure(failed) && failed.code).toBe('mcp_server_unavailable');
    expect(isMcpToolFailure(failed) && failed.message).toMatch(/^The MCP server "tracker" is not reachable right now \(the program was stopped by SIGKILL\), so tracker__search_issues did not run\./);

    await vi.waitFor(() => expect(mcp.health().servers[0]!.state).toBe('ready'), { timeout: 15_000 });
    const second = await pids(pidFile);
    expect(second.server).not.toBe(first.server);
    expect(isGone(first.child)).toBe(true); // the crashed server's orphan was ended with its group
    expect((await mcp.call('tracker__search_issues', { query: 'login' })).text).toContain('PROJ-1');
    expect(messages('warn')).toEqual([
      `MCP server "tracker" (${commandLine(fakeStdioServer('tracker'))}) is down: the program was stopped by SIGKILL; its tools answer with an error until it is back, retrying in the background`,
    ]);
    expect(messages('info').filter((m) => m.includes('is back after'))).toHaveLength(1);
  });

  it('says why a program could not start: its last stderr line, or a command that does not exist', async () => {
    const { logger, messages } = memoryLogger();
    const mcp = await hub(
      [
        serverEntry('github', fakeStdioServer('tracker', { FAKE_MCP_FAIL_AT_START: 'Error: GITHUB_TOKEN is not set' })),
        serverEntry('missing', { kind: 'stdio', command: '/nonexistent/bin/mcp-server', args: [], env: {} }),
      ],
      { logger },
    );
    expect(mcp.health().servers.map((s) => [s.name, s.state, s.lastError])).toEqual([
      ['github', 'down', 'the program exited with code 3: Error: GITHUB_TOKEN is not set'],
      ['missing', 'down', 'the command /nonexistent/bin/mcp-server was not found; check "command" in mcp.json and PATH'],
    ]);
    expect(messages('warn').sort()).toEqual([
      `MCP server "github" (${commandLine(fakeStdioServer('tracker'))}) cannot be reached at start: the program exited with code 3: Error: GITHUB_TOKEN is not set; its tools are offered once it answers, retrying in the background`,
      'MCP server "missing" (/nonexistent/bin/mcp-server) cannot be reached at start: the command /nonexistent/bin/mcp-server was not found; check "command" in mcp.json and PATH; its tools are offered once it answers, retrying in the background',
    ]);
  });

  it('gives the program only a minimal environment plus its own env, and keeps its tokens out of logs and sentences', async () => {
    const token = 'gh-tok-93b1e0c47a';
    const previous = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-parent-process-key-that-must-not-leak';
    try {
      const { logger, raw } = memoryLogger();
      const mcp = await hub([serverEntry('github', fakeStdioServer('misbehaving', { FAKE_MCP_TOKEN: token, FAKE_MCP_SECRET_ECHO: '1' }))], {
        logger,
        secrets: [token],
      });
      const environment = (await mcp.call('github__environment', {})).text;
      expect(environment).toContain('FAKE_MCP_TOKEN');
      expect(environment).toContain('PATH');
      expect(environment).not.toContain('OPENAI_API_KEY');

      const refusal = await mcp.call('github__echo_credentials', {}).catch((e: unknown) => e);
      expect(isMcpToolFailure(refusal) && refusal.message).toContain('key [redacted] is not allowed here');
      // The server wrote the token to stderr at start; stderr lines are logged at debug level, redacted.
      await vi.waitFor(() => expect(raw.some((line) => line.includes('starting with token [redacted]'))).toBe(true), { timeout: 10_000 });
      expect(raw.join('\n')).not.toContain(token);
    } finally {
      if (previous === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = previous;
    }
  });

  it('neither holds up the start for a server that hangs nor leaves it unnamed: one warning with its command, then its tools when it answers', async () => {
    const { logger, messages } = memoryLogger();
    const hanging = fakeStdioServer('tracker', { FAKE_MCP_HANG_AT_START: '1' });
    const mcp = await hub([serverEntry('fs', hanging), serverEntry('tracker', fakeStdioServer('tracker'))], {
      logger,
      startWaitMs: 100,
      slowStartWarnMs: 300,
      connectTimeoutMs: 120_000,
    });
    // createMcpHub returned long before the hanging server's 120 s connect timeout.
    expect(mcp.health().servers[0]).toMatchObject({ name: 'fs', state: 'connecting', target: commandLine(hanging) });

    const aboutFs = () => messages('warn').filter((m) => m.includes('"fs"'));
    await vi.waitFor(() => expect(aboutFs()).toHaveLength(1), { timeout: 15_000 });
    expect(aboutFs()[0]).toBe(`MCP server "fs" (${commandLine(hanging)}) has not answered in 0.3 s; its tools will appear when it does`);
    // The server beside it joins as soon as it is ready; the hanging one is warned about once, not again.
    await vi.waitFor(() => expect(mcp.tools('C1').map((t) => t.server)).toContain('tracker'), { timeout: 15_000 });
    expect(aboutFs()).toHaveLength(1);
    expect(mcp.health().servers[0]!.state).toBe('connecting');
  });

  it('trustAnnotations: tools the server marks read-only (and not destructive) run without asking; without it, every tool asks', async () => {
    const { logger, messages } = memoryLogger();
    const mcp = await hub(
      [
        serverEntry('fs', fakeStdioServer('files'), { trustAnnotations: true }),
        serverEntry('plain', fakeStdioServer('files')),
        serverEntry('both', fakeStdioServer('files'), { trustAnnotations: true, autoApprove: ['move_file'] }),
      ],
      { logger },
    );
    const asking = (server: string) =>
      mcp
        .tools('C1')
        .filter((tool) => tool.server === server && tool.needsApproval)
        .map((tool) => tool.tool)
        .sort();
    expect(mcp.tools('C1').filter((t) => t.server === 'fs')).toHaveLength(14);
    expect(asking('fs')).toEqual(['create_directory', 'edit_file', 'move_file', 'write_file']);
    expect(mcp.tools('C1').filter((t) => t.server === 'fs' && !t.needsApproval).every((t) => t.approvedByAnnotation && FILES_READ_ONLY_TOOLS.includes(t.tool))).toBe(true);
    expect(asking('plain')).toHaveLength(14);
    expect(asking('both')).toEqual(['create_directory', 'edit_file', 'write_file']);
    expect(messages('info')).toContain(`MCP server "fs": trustAnnotations lets 10 tool(s) it marks read-only run without asking: ${FILES_READ_ONLY_TOOLS.join(', ')}`);

    // A trusted read runs at once; the write still waits for the caller's approval (needsApproval: true above).
    expect((await mcp.call('fs__read_text_file', { path: '/data/todo.txt' })).text).toContain('ship it');
  });

  it('names a server by its command or URL without the credentials mcp.json may hold in place', async () => {
    const port = await closedPort();
    const mcp = await hub([
      serverEntry('cli', {
        kind: 'stdio',
        command: '/nonexistent/bin/mcp-server',
        args: ['--token', 'plain-token-value', '--api-key=abc', '--root', '/srv/my files', 'ghp_0123456789abcdefABCDEF0123'],
        env: {},
      }),
      serverEntry('web', httpTransport(`http://user:pw-secret@127.0.0.1:${port}/mcp?key=abc123`)),
    ]);
    expect(mcp.health().servers.map((server) => server.target)).toEqual([
      '/nonexistent/bin/mcp-server --token … --api-key=… --root "/srv/my files" …',
      `http://127.0.0.1:${port}/mcp?…`,
    ]);
  });
});
