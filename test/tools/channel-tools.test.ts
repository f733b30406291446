import { describe, expect, it } from 'vitest';
import { createChannelTools } from '../../src/tools/channel-tools';
import type { McpHub, McpTool } from '../../src/mcp';
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
