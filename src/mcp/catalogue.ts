/**
 * The tools the model is offered, from what each server listed: named `<server>__<tool>`, schemas cleaned, disabled
 * tools removed, approval decided by the operator's configuration. A server's own hints (`readOnlyHint`,
 * `destructiveHint`) are carried for the approval message to show; they skip approval only where the operator said
 * to trust them (`trustAnnotations: true` for that server): by default a server is not trusted to judge itself.
 */
import { cleanToolSchema } from './clean-schema';
import type { McpServerConfig } from './mcp-config';
import { nameServerTools } from './tool-names';

interface McpToolHints {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
}

export interface McpTool {
  /** What the model calls: `<server>__<tool>`, within ^[a-zA-Z0-9_-]{1,64}$. */
  name: string;
  server: string;
  /** The tool's name on its server. */
  tool: string;
  title?: string;
  /** The server's description of the tool. */
  description: string;
  /** A function-parameters schema the model endpoint accepts. */
  parameters: Record<string, unknown>;
  /** From mcp.json: `approval` and `autoApprove` (and the server's read-only claim where `trustAnnotations` is on). */
  needsApproval: boolean;
  /** Runs without asking only because the server marks it read-only and mcp.json trusts its annotations. */
  approvedByAnnotation?: true;
  /** The server is limited to named channels in mcp.json (`channels`): chosen for them specifically. */
  channelScoped?: true;
  /** The server's claims, for display. */
  hints: McpToolHints;
}

export interface ServerCatalogue {
  tools: McpTool[];
  /** Tools whose schema had to be changed, and how (for one log line per server). */
  repaired: Array<{ tool: string; changes: string[] }>;
  /** Listed entries that could not be offered at all (no name, a repeated name). */
  skipped: string[];
  /** autoApprove / disabledTools entries naming tools the server does not have — likely typos. */
  unmatched: { autoApprove: string[]; disabledTools: string[] };
}

const MAX_DESCRIPTION = 4_000;

export function catalogueServerTools(server: McpServerConfig, listed: unknown[]): ServerCatalogue {
  const skipped: string[] = [];
  const entries = new Map<string, Record<string, unknown>>();
  for (const [i, entry] of listed.entries()) {
    const name = isObject(entry) ? entry.name : undefined;
    if (typeof name !== 'string' || name === '') skipped.push(`entry ${i + 1} has no name`);
    else if (entries.has(name)) skipped.push(`"${name}" is listed twice; the first is offered`);
    else entries.set(name, entry as Record<string, unknown>);
  }
  const disabled = new Set(server.disabledTools);
  const autoApproved = new Set(server.autoApprove);
  const offered = [...entries.keys()].filter((name) => !disabled.has(name));
  const names = nameServerTools(server.name, [...entries.keys()]);

  const repaired: ServerCatalogue['repaired'] = [];
  const tools = offered.map((tool): McpTool => {
    const entry = entries.get(tool)!;
    const { schema, changes } = cleanToolSchema(entry.inputSchema);
    if (changes.length > 0) repaired.push({ tool, changes });
    const annotations = isObject(entry.annotations) ? entry.annotations : {};
    const title = [entry.title, annotations.title].find((value): value is string => typeof value === 'string' && value !== '');
    const hints = readHints(annotations);
    const asks = server.approval === 'ask' && !autoApproved.has(tool);
    const trusted = asks && server.trustAnnotations === true && isReadOnlyClaim(hints);
    return {
      name: names.get(tool)!,
      server: server.name,
      tool,
      ...(title ? { title } : {}),
      description: describe(entry.description, title ?? tool, server.name),
      parameters: schema,
      needsApproval: asks && !trusted,
      ...(trusted ? { approvedByAnnotation: true as const } : {}),
      ...(server.channels !== undefined ? { channelScoped: true as const } : {}),
      hints,
    };
  });
  return {
    tools,
    repaired,
    skipped,
    unmatched: {
      autoApprove: server.autoApprove.filter((tool) => !entries.has(tool)),
      disabledTools: server.disabledTools.filter((tool) => !entries.has(tool)),
    },
  };
}

export interface ToolSelection {
  tools: McpTool[];
  /** Servers enabled here whose tools were cut (some or all) to stay within the limit. */
  cut: Array<{ server: string; offered: number; total: number }>;
  /** Tools enabled here before the cut. */
  available: number;
}

/**
 * The tools for one channel, at most `limit`: servers enabled for the channel, in mcp.json's order, each server's
 * tools in the order it lists them. Past the limit, the later servers lose their tools — deterministic, and the
 * operator controls it by ordering the file (or narrowing `channels` / `disabledTools`).
 */
export function selectTools(
  servers: Array<{ config: McpServerConfig; tools: McpTool[] }>,
  channelId: string | undefined,
  limit: number,
): ToolSelection {
  const enabled = servers.filter(({ config }) => isEnabledIn(config, channelId));
  const available = enabled.reduce((sum, { tools }) => sum + tools.length, 0);
  const tools: McpTool[] = [];
  const cut: ToolSelection['cut'] = [];
  for (const { config, tools: own } of enabled) {
    const room = Math.max(0, limit - tools.length);
    tools.push(...own.slice(0, room));
    if (own.length > room) cut.push({ server: config.name, offered: room, total: own.length });
  }
  return { tools, cut, available };
}

export function isEnabledIn(server: McpServerConfig, channelId: string | undefined): boolean {
  return server.channels === undefined || (channelId !== undefined && server.channels.includes(channelId));
}

function describe(description: unknown, label: string, server: string): string {
  const text = typeof description === 'string' ? description.trim() : '';
  if (!text) return `${label} (a tool of the MCP server "${server}"; it gave no description).`;
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}

/** MCP's annotations: read-only means no side effects; a tool that also says destructive is taken at its word. */
function isReadOnlyClaim(hints: McpToolHints): boolean {
  return hints.readOnly === true && hints.destructive !== true;
}

function readHints(annotations: Record<string, unknown>): McpToolHints {
  const hints: McpToolHints = {};
  const pairs = [
    ['readOnly', 'readOnlyHint'],
    ['destructive', 'destructiveHint'],
    ['idempotent', 'idempotentHint'],
    ['openWorld', 'openWorldHint'],
  ] as const;
  for (const [key, hint] of pairs) if (typeof annotations[hint] === 'boolean') hints[key] = annotations[hint] as boolean;
  return hints;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
