/**
 * Tools offered by relevance: with real MCP servers (the files and memory servers shaped like the official ones, and
 * the tracker) served over HTTP on loopback, the hub, createChannelTools and the agent loop against the fake model.
 * Past the budget a request carries threadwise's own tools, the servers chosen for the channel and search_tools;
 * what search_tools finds is offered from the next request on, and calls go to the server as usual.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAgentTurn } from '../../src/agent/run-agent-turn';
import { createMcpHub, type McpHub } from '../../src/mcp';
import { builtInTools } from '../../src/tools';
import { createChannelTools, describeChannelTools, schemaTokens, splitByBudget } from '../../src/tools/channel-tools';
import { words } from '../../src/tools/search-tools';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { buildFilesServer, createFilesState, type FilesState } from '../fakes/mcp/files';
import { startMcpHttpHost, type McpHttpHost } from '../fakes/mcp/http-host';
import { buildMemoryServer } from '../fakes/mcp/memory';
import { buildTrackerServer, createTrackerState } from '../fakes/mcp/tracker';
import { httpTransport, memoryLogger, serverEntry } from '../mcp/support';
import { closedPort } from '../support/closed-port';
import { fakeModel, loopInput, toolResultsIn } from '../agent/loop-fixtures';

let model: FakeOpenAI;
let hosts: McpHttpHost[];
let hub: McpHub;
let files: FilesState;
let goneUrl: string;

beforeAll(async () => {
  model = await startFakeOpenAI({ apiKey: 'sk-tools-test' });
  files = createFilesState();
  const tracker = createTrackerState();
  hosts = await Promise.all([
    startMcpHttpHost({ createServer: () => buildFilesServer(files) }),
    startMcpHttpHost({ createServer: () => buildMemoryServer() }),
    startMcpHttpHost({ createServer: () => buildTrackerServer(tracker) }),
  ]);
  goneUrl = `http://127.0.0.1:${await closedPort()}/mcp`;
  hub = await createMcpHub(
    {
      servers: [
        serverEntry('fs', httpTransport(hosts[0]!.url), { trustAnnotations: true }),
        serverEntry('memory', httpTransport(hosts[1]!.url)),
        // Chosen for C_TEAM specifically in mcp.json: offered up front there.
        serverEntry('tracker', httpTransport(hosts[2]!.url), { channels: ['C_TEAM'] }),
        serverEntry('gone', httpTransport(goneUrl)),
      ],
      secrets: [],
    },
    { logger: memoryLogger().logger, startWaitMs: 60_000 },
  );
});
afterAll(async () => {
  await hub?.close();
  await Promise.all((hosts ?? []).map((host) => host.close()));
  await model?.close();
});
beforeEach(() => {
  model.reset();
  files.calls.length = 0;
});

const toolNames = (request: { tools?: unknown } | undefined) => ((request?.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
const builtIn = builtInTools().map((tool) => tool.name);

describe('createChannelTools past the budget', () => {
  it('offers threadwise’s own tools and search_tools; what search finds is offered from the next request and runs', async () => {
    const registry = createChannelTools(builtInTools(), hub)('C_OTHER');
    model.enqueue(
      { toolCalls: [{ name: 'search_tools', arguments: { query: 'read the text of a file' } }] },
      { toolCalls: [{ name: 'fs__read_text_file', arguments: { path: '/data/todo.txt' } }] },
      { text: 'The to-do list says: ship it.' },
    );
    const { input } = loopInput({ model: fakeModel(model), tools: [] });
    const result = await runAgentTurn({ ...input, registry, messages: [{ role: 'user', content: 'What is in todo.txt?' }] });

    expect(result.answer).toBe('The to-do list says: ship it.');
    expect(toolNames(model.requests[0])).toEqual([...builtIn, 'search_tools']);
    const found = toolResultsIn(model.requests[1]!)[0]!;
    expect(found).toMatch(/^5 tools for "read the text of a file", best first/);
    const listed = JSON.parse(found.slice(found.indexOf('\n') + 1)) as Array<{ name: string; parameters: unknown; asksForApproval?: boolean }>;
    expect(listed[0]).toMatchObject({ name: 'fs__read_text_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } });
    expect(listed[0]!.asksForApproval).toBeUndefined(); // trustAnnotations: read-only, so it runs without asking
    // The next request offers what was found, beside what it offered before.
    expect(toolNames(model.requests[1])).toEqual([...builtIn, 'search_tools', ...listed.map((tool) => tool.name)]);
    expect(files.calls).toEqual([{ tool: 'read_text_file', args: { path: '/data/todo.txt' } }]);
    expect(toolResultsIn(model.requests[2]!).at(-1)).toContain('ship it');
  });

  it('ranks by what the tool does, across servers', async () => {
    const registry = createChannelTools(builtInTools(), hub)('C_OTHER');
    const search = async (query: string) => {
      const text = await registry.get('search_tools')!.execute({ query, limit: 3 }, { recordActivity: () => {} } as never);
      return text.startsWith('No tool') ? [] : (JSON.parse(text.slice(text.indexOf('\n') + 1)) as Array<{ name: string }>).map((tool) => tool.name);
    };
    expect((await search('write a file'))[0]).toBe('fs__write_file');
    expect((await search('create entities in the knowledge graph'))[0]).toBe('memory__create_entities');
    expect(await search('move or rename a directory')).toContain('fs__move_file');
    expect(await search('xyzzy')).toEqual([]);
    // The tracker is limited to another channel in mcp.json: never found here.
    expect(await search('create an issue')).not.toContain('tracker__create_issue');
  });

  it('keeps every tool the channel may use callable by name, found or not (a call parked for approval resumes with fresh tools)', () => {
    const registry = createChannelTools(builtInTools(), hub)('C_OTHER');
    expect(registry.specs().map((spec) => spec.name)).toEqual([...builtIn, 'search_tools']);
    expect(registry.get('fs__write_file')?.approval?.({ path: '/x', content: 'y' })).toMatchObject({ server: 'fs', action: 'write_file' });
    expect(registry.get('memory__read_graph')).toBeDefined();
    expect(registry.get('tracker__create_issue')).toBeUndefined();
    // Called by name, it is offered from then on, as if found.
    expect(registry.specs().map((spec) => spec.name)).toEqual([...builtIn, 'search_tools', 'fs__write_file', 'memory__read_graph']);
  });

  it('offers the servers chosen for the channel up front: by mcp.json’s channels, or all of them when the channel’s settings name them', () => {
    const toolsFor = createChannelTools(builtInTools(), hub);
    const offered = (registry: ReturnType<typeof toolsFor>) => registry.specs().map((spec) => spec.name);
    // In C_TEAM the tracker (3 tools, limited to it) comes up front; fs and memory wait behind search.
    expect(offered(toolsFor('C_TEAM'))).toEqual([...builtIn, 'tracker__search_issues', 'tracker__get_issue', 'tracker__create_issue', 'search_tools']);
    // A channel whose settings name only fs: its 14 tools fit, so no search at all.
    const fsOnly = offered(toolsFor('C_OTHER', { mcpServers: ['fs'] }));
    expect(fsOnly).toHaveLength(builtIn.length + 14);
    expect(fsOnly).not.toContain('search_tools');
  });

  it('describes every tool and server for /ask tools: the ones behind search marked, a down server with its URL', () => {
    const overview = describeChannelTools(createChannelTools(builtInTools(), hub)('C_OTHER'));
    expect(overview.tools.filter((tool) => tool.server === 'fs')).toHaveLength(14);
    expect(overview.tools.filter((tool) => tool.server).every((tool) => tool.bySearch)).toBe(true);
    expect(overview.tools.map((tool) => tool.name)).not.toContain('search_tools');
    expect(overview.servers.map((server) => [server.name, server.state])).toEqual([
      ['fs', 'ready'],
      ['memory', 'ready'],
      ['gone', 'down'],
    ]);
    expect(overview.servers[2]).toMatchObject({ target: goneUrl, lastError: 'connection refused' });
  });
});

describe('splitByBudget', () => {
  const tool = (server: string, name: string, extra = {}) => ({
    name: `${server}__${name}`,
    server,
    tool: name,
    description: `${name} does one thing.`,
    parameters: { type: 'object', properties: {} },
    needsApproval: false,
    hints: {},
    ...extra,
  });

  it('offers everything within the budget, and past it only whole chosen servers that fit', () => {
    const small = [tool('a', 'one'), tool('b', 'two')];
    expect(splitByBudget(small, { maxTools: 20, maxSchemaTokens: 6_000 }, 6, false)).toEqual({ upFront: small, bySearch: [] });
    const many = [...Array.from({ length: 3 }, (_, i) => tool('pinned', `p${i}`, { channelScoped: true })), ...Array.from({ length: 30 }, (_, i) => tool('wide', `w${i}`))];
    const split = splitByBudget(many, { maxTools: 20, maxSchemaTokens: 6_000 }, 6, false);
    expect(split.upFront.map((t) => t.server)).toEqual(['pinned', 'pinned', 'pinned']);
    expect(split.bySearch).toHaveLength(30);
    // By tokens alone: two tools whose schemas exceed the budget.
    const costly = [tool('a', 'one'), tool('a', 'two')];
    expect(splitByBudget(costly, { maxTools: 20, maxSchemaTokens: schemaTokens(costly[0]!) }, 6, false).bySearch).toHaveLength(2);
  });

  it('folds words for matching: camelCase, snake_case, plurals, stop words', () => {
    expect(words('listIssues for the read_text_file tool')).toEqual(['list', 'issue', 'read', 'text', 'file']);
  });
});
