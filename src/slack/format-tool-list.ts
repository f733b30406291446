/** `/ask tools`: what this channel offers, the connected servers' tools grouped by server, approval marked. */
import { escapeMrkdwn } from './format/escape-mrkdwn';

export interface ToolListing {
  name: string;
  description: string;
  needsApproval: boolean;
}

/** Tools from MCP servers are named `<server>__<tool>`; threadwise's own have no server part. */
const SERVER_SEPARATOR = '__';

export function formatToolList(tools: ToolListing[]): string {
  const own = tools.filter((tool) => !tool.name.includes(SERVER_SEPARATOR));
  const byServer = new Map<string, ToolListing[]>();
  for (const tool of tools.filter((t) => t.name.includes(SERVER_SEPARATOR))) {
    const server = tool.name.slice(0, tool.name.indexOf(SERVER_SEPARATOR));
    byServer.set(server, [...(byServer.get(server) ?? []), tool]);
  }
  const lines = [`*What I can use here:* ${own.map((tool) => `\`${tool.name}\``).join(', ')} (reading the thread's files and skills).`];
  if (byServer.size === 0) {
    lines.push('No tool servers are connected in this channel. The team that runs me can add them (MCP, see the README).');
    return lines.join('\n');
  }
  for (const [server, listed] of byServer) {
    lines.push('', `*${escapeMrkdwn(server)}*`);
    for (const tool of listed) {
      const action = tool.name.slice(server.length + SERVER_SEPARATOR.length);
      const mark = tool.needsApproval ? ' — _asks for approval first_' : '';
      lines.push(`• \`${escapeMrkdwn(action)}\`${mark}: ${escapeMrkdwn(firstSentence(tool.description))}`);
    }
  }
  lines.push('', 'A tool that asks for approval does nothing until the person who asked (or an admin) presses Approve in the thread.');
  return lines.join('\n');
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? flat.slice(0, end + 1) : flat;
  return sentence.length > 160 ? `${sentence.slice(0, 159)}…` : sentence || 'no description';
}
