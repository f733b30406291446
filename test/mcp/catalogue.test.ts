import { describe, expect, it } from 'vitest';
import { catalogueServerTools, selectTools } from '../../src/mcp/catalogue';
import type { McpServerConfig } from '../../src/mcp';
import { nameServerTools } from '../../src/mcp/tool-names';

const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function server(name: string, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name, transport: { kind: 'stdio', command: 'x', args: [], env: {} }, approval: 'ask', autoApprove: [], disabledTools: [], timeoutMs: 60_000, ...extra };
}

const listed = (...names: string[]) => names.map((name) => ({ name, description: `Does ${name}.`, inputSchema: { type: 'object', properties: {} } }));

describe('tool names', () => {
  it('are <server>__<tool>, sanitised to OpenAI’s rule', () => {
    const names = nameServerTools('my.server', ['search_issues', 'get-issue', 'tool with spaces', 'ünïcode']);
    expect([...names.values()]).toEqual(['my_server__search_issues', 'my_server__get-issue', 'my_server__tool_with_spaces', 'my_server___n_code']);
  });

  it('stay unique when sanitising makes two alike, and within 64 characters', () => {
    const long = `create_${'very_'.repeat(20)}long`;
    const names = nameServerTools('jira', ['dotted.name', 'dotted_name', 'dotted name', long, `${long}_2`]);
    const values = [...names.values()];
    expect(new Set(values).size).toBe(values.length);
    for (const name of values) expect(name).toMatch(OPENAI_NAME);
    expect(names.get('dotted_name')).toBe('jira__dotted_name');
    expect(names.get('dotted.name')).toMatch(/^jira__dotted_name_[0-9a-f]{8}$/);
    expect(names.get(long)).toHaveLength(64);
  });

  it('do not depend on the order the server lists its tools', () => {
    const tools = ['a.b', 'a_b', 'a b', 'x'.repeat(70), 'plain'];
    const forward = nameServerTools('s', tools);
    const backward = nameServerTools('s', [...tools].reverse());
    for (const tool of tools) expect(backward.get(tool)).toBe(forward.get(tool));
  });
});

describe('catalogueServerTools', () => {
  it('trusts a read-only claim only where mcp.json says trustAnnotations, and never one that also says destructive', () => {
    const annotated = [
      { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'read_but_destructive', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true, destructiveHint: true } },
      { name: 'write', inputSchema: { type: 'object' }, annotations: { readOnlyHint: false } },
      { name: 'says_nothing', inputSchema: { type: 'object' } },
      { name: 'read_as_text', inputSchema: { type: 'object' }, annotations: { readOnlyHint: 'true' } },
    ];
    const asking = (config: McpServerConfig) => catalogueServerTools(config, annotated).tools.filter((t) => t.needsApproval).map((t) => t.tool);
    expect(asking(server('fs'))).toEqual(['read', 'read_but_destructive', 'write', 'says_nothing', 'read_as_text']);
    expect(asking(server('fs', { trustAnnotations: true }))).toEqual(['read_but_destructive', 'write', 'says_nothing', 'read_as_text']);
    expect(catalogueServerTools(server('fs', { trustAnnotations: true }), annotated).tools[0]).toMatchObject({ approvedByAnnotation: true, needsApproval: false });
    // Under "auto" nothing asks, and nothing is credited to the annotations.
    expect(catalogueServerTools(server('fs', { trustAnnotations: true, approval: 'auto' }), annotated).tools.some((t) => t.approvedByAnnotation)).toBe(false);
  });

  it('offers each tool with the server’s description and a cleaned schema, minus disabledTools', () => {
    const { tools } = catalogueServerTools(server('github', { disabledTools: ['delete_repository'] }), [
      { name: 'create_issue', title: 'Create issue', description: 'Creates an issue.', inputSchema: { type: 'object', properties: { labels: { type: 'array' } } } },
      { name: 'delete_repository', description: 'Deletes a repository.', inputSchema: { type: 'object', properties: {} } },
      { name: 'no_description' },
    ]);
    expect(tools.map((t) => t.name)).toEqual(['github__create_issue', 'github__no_description']);
    expect(tools[0]).toMatchObject({
      server: 'github',
      tool: 'create_issue',
      title: 'Create issue',
      description: 'Creates an issue.',
      parameters: { type: 'object', properties: { labels: { type: 'array', items: {} } } },
    });
    expect(tools[1]!.description).toBe('no_description (a tool of the MCP server "github"; it gave no description).');
  });

  it('decides approval from the configuration alone, whatever the server claims', () => {
    const claims = [
      { name: 'search_issues', annotations: { readOnlyHint: true } },
      { name: 'create_issue', annotations: { readOnlyHint: true, destructiveHint: false } }, // a server lying about itself
      { name: 'delete_issue', annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false } },
    ];
    const ask = catalogueServerTools(server('t', { autoApprove: ['search_issues'] }), claims).tools;
    expect(ask.map((t) => [t.tool, t.needsApproval])).toEqual([
      ['search_issues', false],
      ['create_issue', true],
      ['delete_issue', true],
    ]);
    expect(ask[1]!.hints).toEqual({ readOnly: true, destructive: false });
    expect(ask[2]!.hints).toEqual({ destructive: true, idempotent: true, openWorld: false });

    const auto = catalogueServerTools(server('t', { approval: 'auto' }), claims).tools;
    expect(auto.every((t) => !t.needsApproval)).toBe(true);
  });

  it('names autoApprove and disabledTools entries that match no tool, and skips entries it cannot offer', () => {
    const result = catalogueServerTools(server('t', { autoApprove: ['serch_issues'], disabledTools: ['delete_repo'] }), [
      ...listed('search_issues'),
      { description: 'no name' },
      ...listed('search_issues'),
    ]);
    expect(result.unmatched).toEqual({ autoApprove: ['serch_issues'], disabledTools: ['delete_repo'] });
    expect(result.skipped).toEqual(['entry 2 has no name', '"search_issues" is listed twice; the first is offered']);
    expect(result.tools).toHaveLength(1);
  });

  it('reports which schemas it repaired', () => {
    const { repaired } = catalogueServerTools(server('t'), [{ name: 'bad', inputSchema: { type: 'object', properties: { x: { type: 'array' } } } }, ...listed('good')]);
    expect(repaired).toEqual([{ tool: 'bad', changes: ['array without "items" at x given open items'] }]);
  });
});

describe('selectTools', () => {
  const jira = { config: server('jira'), tools: catalogueServerTools(server('jira'), listed('a', 'b', 'c')).tools };
  const github = {
    config: server('github', { channels: ['C0123ABC'] }),
    tools: catalogueServerTools(server('github'), listed('d', 'e')).tools,
  };

  it('offers a server only in its channels, and everywhere when it names none', () => {
    expect(selectTools([jira, github], 'C0123ABC', 128).tools.map((t) => t.name)).toEqual(['jira__a', 'jira__b', 'jira__c', 'github__d', 'github__e']);
    expect(selectTools([jira, github], 'C999', 128).tools.map((t) => t.name)).toEqual(['jira__a', 'jira__b', 'jira__c']);
    expect(selectTools([jira, github], undefined, 128).tools.map((t) => t.name)).toEqual(['jira__a', 'jira__b', 'jira__c']);
  });

  it('cuts past the limit in mcp.json’s order, the same way every time, and says what it cut', () => {
    const many = Array.from({ length: 100 }, (_, i) => `tool_${i}`);
    const big = (name: string) => ({ config: server(name), tools: catalogueServerTools(server(name), listed(...many)).tools });
    const servers = [big('first'), big('second'), big('third')];
    const selection = selectTools(servers, 'C1', 128);
    expect(selection.tools).toHaveLength(128);
    expect(selection.available).toBe(300);
    expect(selection.cut).toEqual([
      { server: 'second', offered: 28, total: 100 },
      { server: 'third', offered: 0, total: 100 },
    ]);
    expect(selection.tools.at(-1)!.name).toBe('second__tool_27');
    expect(selectTools(servers, 'C1', 128).tools.map((t) => t.name)).toEqual(selection.tools.map((t) => t.name));
    // Only the servers enabled for the channel count toward the limit.
    const scoped = [big('first'), { ...big('second'), config: server('second', { channels: ['C2'] }) }];
    expect(selectTools(scoped, 'C1', 128)).toMatchObject({ available: 100, cut: [] });
  });
});
