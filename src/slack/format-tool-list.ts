/**
 * `/ask tools`: what this channel offers — threadwise's own tools, then every tool server the channel may use with
 * its state: connected (its tools, approval marked), still connecting, or down (why, its command or URL, since when,
 * the next try). A server that is down is named, never silently left out.
 */
import { escapeMrkdwn } from './format/escape-mrkdwn';

export interface ToolListing {
  name: string;
  description: string;
  needsApproval: boolean;
  /** The MCP server it comes from (absent for threadwise's own tools) and its name there. */
  server?: string;
  action?: string;
  /** Not in every request: looked up with search_tools when a question needs it (there are many). */
  bySearch?: boolean;
}

export interface ServerListing {
  name: string;
  state: 'connecting' | 'ready' | 'down' | 'closed';
  /** The command line or URL from mcp.json (secrets redacted). */
  target?: string;
  tools: number;
  /** Epoch ms the state began. */
  since: number;
  lastError?: string;
  nextRetryAt?: number;
}

export interface ToolOverview {
  tools: ToolListing[];
  servers: ServerListing[];
}

/** Tools from MCP servers are named `<server>__<tool>`; threadwise's own have no server part. */
const SERVER_SEPARATOR = '__';

export function formatToolList(overview: ToolOverview): string {
  const { tools, servers } = overview;
  const fromServer = (tool: ToolListing) => tool.server !== undefined || tool.name.includes(SERVER_SEPARATOR);
  const own = tools.filter((tool) => !fromServer(tool));
  const lines = [`*What I can use here:* ${own.map((tool) => `\`${tool.name}\``).join(', ')} (reading the thread's files and skills).`];

  const byServer = new Map<string, ToolListing[]>();
  for (const tool of tools.filter(fromServer)) {
    const server = tool.server ?? tool.name.slice(0, tool.name.indexOf(SERVER_SEPARATOR));
    byServer.set(server, [...(byServer.get(server) ?? []), tool]);
  }
  // Every server the channel may use, in mcp.json's order; tools whose server is not in the health list follow.
  const named = [...servers.map((server) => server.name), ...[...byServer.keys()].filter((name) => !servers.some((s) => s.name === name))];
  if (named.length === 0) {
    lines.push('No tool servers are set up for this channel. The team that runs me can add them (MCP, see docs/mcp.md).');
    return lines.join('\n');
  }
  for (const name of named) {
    const server = servers.find((s) => s.name === name);
    const listed = byServer.get(name) ?? [];
    lines.push('', `*${escapeMrkdwn(name)}* — ${server ? describeState(server, listed) : `${count(listed.length)}`}`);
    for (const tool of listed) {
      const action = tool.action ?? tool.name.slice(tool.name.indexOf(SERVER_SEPARATOR) + SERVER_SEPARATOR.length);
      const mark = tool.needsApproval ? ' — _asks for approval first_' : '';
      lines.push(`• \`${escapeMrkdwn(action)}\`${mark}: ${escapeMrkdwn(firstSentence(tool.description))}`);
    }
  }
  if (tools.some((tool) => tool.needsApproval)) {
    lines.push('', 'A tool that asks for approval does nothing until the person who asked (or an admin) presses Approve in the thread.');
  }
  return lines.join('\n');
}

function describeState(server: ServerListing, listed: ToolListing[]): string {
  const where = server.target ? ` (\`${escapeMrkdwn(server.target.replace(/`/g, "'"))}\`)` : '';
  const searched = listed.length > 0 && listed.every((tool) => tool.bySearch) ? '; there are many tools here, so I look these up when a question needs them' : '';
  switch (server.state) {
    case 'ready':
      return `connected: ${count(server.tools)}${searched}`;
    case 'connecting':
      return `:hourglass: not answering yet${where}, starting since ${when(server.since)}; its tools appear when it answers`;
    case 'down': {
      const why = server.lastError ? `: ${escapeMrkdwn(server.lastError)}` : '';
      const next = server.nextRetryAt ? `; next try ${when(server.nextRetryAt)}` : '';
      const stale = listed.length > 0 ? ' Its tools, as last listed, answer with an error until it is back.' : ' Its tools are offered once it answers.';
      return `:warning: down since ${when(server.since)}${why}${where}${next}.${stale}`;
    }
    case 'closed':
      return 'stopped (threadwise is shutting down)';
  }
}

function count(tools: number): string {
  return `${tools} tool${tools === 1 ? '' : 's'}`;
}

/** In each reader's own time zone (Slack renders it); the fallback is UTC. */
function when(epochMs: number): string {
  const seconds = Math.floor(epochMs / 1000);
  const fallback = `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${seconds}^{date_short_pretty} {time}|${fallback}>`;
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? flat.slice(0, end + 1) : flat;
  return sentence.length > 160 ? `${sentence.slice(0, 159)}…` : sentence || 'no description';
}
