/**
 * The names the model sees: `<server>__<tool>`, within OpenAI's rule ^[a-zA-Z0-9_-]{1,64}$. A name depends only on
 * the server, the tool and its server's other tool names — never on the order tools were listed — so a call in a
 * thread's history or a pending approval keeps naming the same tool after a reconnect.
 */
import { createHash } from 'node:crypto';

const MAX_TOOL_NAME_LENGTH = 64;
/** OpenAI's limit on the tools of one request; MCP tools get what threadwise's own leave. */
export const OPENAI_TOOL_LIMIT = 128;

export const SERVER_TOOL_SEPARATOR = '__';
/** Server names are capped so every tool keeps at least this much of its own name. */
export const MAX_SERVER_NAME_LENGTH = 40;

export function sanitiseNamePart(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * Exposed names for one server's tools, by original tool name. A tool whose name needed changing (characters
 * outside the rule) and then collides with a sibling, or that is too long, gets a short hash of its original name,
 * so two tools never share a name and each keeps the same one.
 */
export function nameServerTools(server: string, tools: string[]): Map<string, string> {
  const prefix = `${sanitiseNamePart(server)}${SERVER_TOOL_SEPARATOR}`;
  const plain = new Map<string, string>();
  const owners = new Map<string, number>();
  for (const tool of tools) {
    const name = `${prefix}${sanitiseNamePart(tool)}`;
    plain.set(tool, name);
    owners.set(name, (owners.get(name) ?? 0) + 1);
  }
  const names = new Map<string, string>();
  for (const tool of tools) {
    const name = plain.get(tool)!;
    const lossless = sanitiseNamePart(tool) === tool;
    const collides = owners.get(name)! > 1;
    names.set(tool, name.length <= MAX_TOOL_NAME_LENGTH && (lossless || !collides) ? name : hashedName(prefix, server, tool));
  }
  return names;
}

function hashedName(prefix: string, server: string, tool: string): string {
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  const room = MAX_TOOL_NAME_LENGTH - prefix.length - hash.length - 1;
  return `${prefix}${sanitiseNamePart(tool).slice(0, Math.max(0, room))}_${hash}`;
}
