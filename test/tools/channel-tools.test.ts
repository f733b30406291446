import { describe, expect, it } from 'vitest';
import { createChannelTools } from '../../src/tools/channel-tools';
import { createPersonalServers, parseMcpConfig, type McpHub, type McpTool } from '../../src/mcp';
import { memoryLogger } from '../mcp/support';
import { builtInTools } from '../../src/tools';

const tool = (server: string, name: string): McpTool =>
  ({ name: `${server}__${name}`, server, tool: name, description: `${name} on ${server}`, parameters: { type: 'object', properties: {} }, needsApproval: false, hints: {} }) as McpTool;

/** Two servers, both enabled everywhere by mcp.json. */
const hub: McpHub = {
  tools: () => [tool('github', 'search_issues'), tool('jira', 'create_issue')],
  call: async () => ({ text: '', images: [], isError: false }) as never,
  health: () => ({ servers: [] }),
  close: async () => {},
};

describe('createChannelTools', () => {
  const toolsFor = createChannelTools(builtInTools(), hub);
  const external = (names: string[]) => names.filter((name) => name.includes('__'));

  it('offers every server mcp.json enables when the channel’s settings name none', () => {
    expect(external(toolsFor('C1').names())).toEqual(['github__search_issues', 'jira__create_issue']);
  });

  it('offers only the servers the channel’s settings name, and threadwise’s own tools always', () => {
    const names = toolsFor('C1', { mcpServers: ['jira'] }).names();
    expect(external(names)).toEqual(['jira__create_issue']);
    expect(names).toContain('load_file');
    expect(external(toolsFor('C1', { mcpServers: [] }).names())).toEqual([]);
  });
});

describe('createChannelTools with per-person servers', () => {
  /** What createPersonalServers is given: a store whose last-listed tools for `jira` are known; nobody connected. */
  const store = {
    tokens: async () => undefined,
    saveTokens: async () => {},
    deleteGrant: async () => false,
    touch: async () => {},
    client: async () => undefined,
    saveClient: async () => {},
    forgetClient: async () => {},
    discovery: async () => undefined,
    saveDiscovery: async () => {},
    cachedTools: async (server: string) => (server === 'jira' ? [{ name: 'search_issues', description: 'Search', inputSchema: { type: 'object', properties: {} } }] : undefined),
    saveTools: async () => {},
    startSignIn: async () => ({ id: 1 }),
    signInExpired: async () => false,
  };
  const context = (signal = new AbortController().signal) =>
    ({ signal, tokensLeft: () => 10_000, showImage: () => {}, recordActivity: () => {}, files: undefined, skills: undefined }) as never;

  it('offers their tools beside the shared servers’, narrowed by the channel’s settings like any server', async () => {
    const parsed = parseMcpConfig(JSON.stringify({ mcpServers: { jira: { url: 'http://127.0.0.1:9/mcp', auth: 'oauth' } } }), {}, 'mcp.json');
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const personal = await createPersonalServers(parsed.config, { store, redirectUrl: 'https://t.example/oauth/callback', logger: memoryLogger().logger });
    try {
      const toolsFor = createChannelTools(builtInTools(), hub, { personal });
      const names = (options?: Parameters<typeof toolsFor>[1]) => toolsFor('C1', options).names().filter((name) => name.includes('__'));
      expect(names()).toEqual(['github__search_issues', 'jira__create_issue', 'jira__search_issues', 'jira__connect']);
      expect(names({ mcpServers: ['github'] })).toEqual(['github__search_issues']);
    } finally {
      await personal.close();
    }
  });

  it('refuses, with a sentence, a call that has no speaker (the terminal): a per-person server has no shared account', async () => {
    const parsed = parseMcpConfig(JSON.stringify({ mcpServers: { jira: { url: 'http://127.0.0.1:9/mcp', auth: 'oauth' } } }), {}, 'mcp.json');
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const personal = await createPersonalServers(parsed.config, { store, redirectUrl: 'https://t.example/oauth/callback', logger: memoryLogger().logger });
    try {
      const tool = createChannelTools(builtInTools(), undefined, { personal })('C1').get('jira__search_issues')!;
      await expect(tool.execute({ query: 'login' }, context())).rejects.toThrow('jira__search_issues acts with the account of the person asking, and this conversation has none, so it did not run.');
    } finally {
      await personal.close();
    }
  });
});
