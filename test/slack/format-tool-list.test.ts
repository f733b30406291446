/** `/ask tools`: every server the channel may use is named with its state, never left out because it is down. */
import { describe, expect, it } from 'vitest';
import { formatToolList, type ServerListing, type ToolListing } from '../../src/slack/format-tool-list';

const own: ToolListing[] = [
  { name: 'load_file', description: 'Loads a file.', needsApproval: false },
  { name: 'load_skill', description: 'Loads a skill.', needsApproval: false },
];
const tracker: ToolListing[] = [
  { name: 'tracker__get_issue', server: 'tracker', action: 'get_issue', description: 'Gets one issue by key. More text.', needsApproval: false },
  { name: 'tracker__create_issue', server: 'tracker', action: 'create_issue', description: 'Creates an issue.', needsApproval: true },
];
const since = Date.UTC(2026, 10, 21, 9, 30);
const ready: ServerListing = { name: 'tracker', state: 'ready', target: 'https://tracker.example.com/mcp', tools: 2, since };
const down: ServerListing = {
  name: 'fs',
  state: 'down',
  target: 'npx -y @modelcontextprotocol/server-filesystem /tmp',
  tools: 0,
  since,
  lastError: 'the program exited with code 1: Error: <EACCES> & more',
  nextRetryAt: since + 60_000,
};

describe('formatToolList', () => {
  it('names a down server beside a working one: why, its command, since when, the next try', () => {
    const text = formatToolList({ tools: [...own, ...tracker], servers: [ready, down] });
    expect(text).toContain('*tracker* — connected: 2 tools');
    expect(text).toContain('• `create_issue` — _asks for approval first_: Creates an issue.');
    expect(text).toContain('• `get_issue`: Gets one issue by key.');
    expect(text).toContain(
      '*fs* — :warning: down since <!date^1795253400^{date_short_pretty} {time}|2026-11-21 09:30 UTC>: the program exited with code 1: Error: &lt;EACCES&gt; &amp; more (`npx -y @modelcontextprotocol/server-filesystem /tmp`); next try <!date^1795253460^{date_short_pretty} {time}|2026-11-21 09:31 UTC>. Its tools are offered once it answers.',
    );
    expect(text.indexOf('*tracker*')).toBeLessThan(text.indexOf('*fs*'));
  });

  it('when the only server is down, says so instead of "no servers"', () => {
    const text = formatToolList({ tools: own, servers: [down] });
    expect(text).toContain('*fs* — :warning: down since');
    expect(text).not.toContain('No tool servers');
  });

  it('names a server still starting, and one whose tools are looked up by search', () => {
    const connecting: ServerListing = { name: 'slow', state: 'connecting', target: 'npx -y slow-server', tools: 0, since };
    const searched = tracker.map((tool) => ({ ...tool, bySearch: true }));
    const text = formatToolList({ tools: [...own, ...searched], servers: [ready, connecting] });
    expect(text).toContain('*slow* — :hourglass: not answering yet (`npx -y slow-server`), starting since <!date^1795253400^');
    expect(text).toContain('*tracker* — connected: 2 tools; there are many tools here, so I look these up when a question needs them');
  });

  it('says when no server is set up at all', () => {
    expect(formatToolList({ tools: own, servers: [] })).toBe(
      "*What I can use here:* `load_file`, `load_skill` (reading the thread's files and skills).\nNo tool servers are set up for this channel. The team that runs me can add them (MCP, see docs/mcp.md).",
    );
  });
});
