/**
 * The tools a channel offers: threadwise's own everywhere, plus the MCP servers' tools enabled there, each as an
 * external tool that waits for approval when mcp.json says so. Images a server returns are checked by their bytes
 * before the model sees them.
 *
 * Many tools cost every request their schemas (two ordinary servers: ~20 tools, ~5k tokens). Past a budget the
 * request carries threadwise's own tools, the tools of the servers chosen for this channel specifically (named in
 * the channel's settings, or limited to named channels in mcp.json) as far as they fit, and `search_tools`, which
 * finds the others by relevance and adds them to the run's tools. Nothing beyond what the channel may use is ever
 * offered or callable, and approval is the same either way.
 */
import type { ApproveNow } from '../core/approval';
import { detectImageFormat, imageMimeType, SHOWABLE_IMAGE_FORMATS } from '../files/image-format';
import type { McpHub, McpTool, McpToolResult, PersonalServers, ServerHealth, Speaker } from '../mcp';
import { OPENAI_TOOL_LIMIT } from '../mcp/tool-names';
import { countTokens } from '../text/tokenizer';
import { createExternalTool } from './external-tool';
import { createToolRegistry, type ToolRegistry } from './registry';
import { createSearchToolsTool, SEARCH_TOOLS_NAME, type SearchableTool } from './search-tools';
import type { Tool } from './tool';
import type { ToolSpec } from '../core/chat';

export interface ToolBudget {
  /** More MCP tools than this in a channel: the rest are found through search_tools. Default 20. */
  maxTools: number;
  /** More tokens than this in their schemas (name, description, parameters): likewise. Default 6,000. */
  maxSchemaTokens: number;
}

const DEFAULT_TOOL_BUDGET: ToolBudget = { maxTools: 20, maxSchemaTokens: 6_000 };

/** For `/ask tools` and App Home: every tool the channel may use, and every server it may use with its state. */
export interface ToolOverview {
  tools: Array<{ name: string; description: string; needsApproval: boolean; server?: string; action?: string; bySearch?: boolean }>;
  servers: ServerHealth[];
}

/** Counted with a modern encoding: close enough for a budget, whatever the model. */
const BUDGET_ENCODING_MODEL = 'gpt-4o';
const overviews = new WeakMap<ToolRegistry, () => ToolOverview>();

export function createChannelTools(
  builtIn: Tool[],
  hub: McpHub | undefined,
  options: {
    /** Asks the person at hand before a tool that needs approval (the terminal); without it such a call parks the run. */
    approveNow?: ApproveNow;
    budget?: ToolBudget;
    /** Servers with `"auth": "oauth"`: their tools act as the run's speaker, never anyone else. */
    personal?: PersonalServers;
  } = {},
): (channelId: string, options?: ChannelToolOptions) => ToolRegistry {
  const builtInOnly = createToolRegistry(builtIn);
  const { personal } = options;
  if (!hub && !personal) return () => builtInOnly;
  const budget = options.budget ?? DEFAULT_TOOL_BUDGET;
  // Keyed by the hub's own objects, which it replaces when a server's tools change.
  const external = new WeakMap<McpTool, Tool>();
  const externalTool = (tool: McpTool) => {
    let made = external.get(tool);
    if (!made) {
      made = toExternalTool(hub!, tool, options.approveNow);
      external.set(tool, made);
    }
    return made;
  };

  return (channelId, { mcpServers, speaker, runId } = {}) => {
    // mcp.json's `channels` decides where a server may be used at all; the channel's settings narrow that further.
    const chosen = mcpServers ? new Set(mcpServers) : undefined;
    // Per-person servers' tools act as the run's speaker (nobody else's account); the terminal has none. They are
    // few (a connect tool, or one person's list) and always offered, so a sign-in can be asked for.
    const own = (personal?.tools(channelId) ?? []).filter((tool) => !chosen || chosen.has(tool.server));
    const enabled = (hub?.tools(channelId, { limit: Number.MAX_SAFE_INTEGER }) ?? []).filter((tool) => !chosen || chosen.has(tool.server));
    const servers = () => (hub?.health(channelId).servers ?? []).filter((server) => !chosen || chosen.has(server.name));
    const { upFront, bySearch } = splitByBudget(enabled, budget, builtIn.length + own.length, chosen !== undefined);
    const personalTools = own.map((tool) => toPersonalTool(personal!, tool, { speaker, runId }, options.approveNow));
    const registry =
      enabled.length === 0 && own.length === 0
        ? builtInOnly
        : createRunTools(builtInOnly, [...upFront.map(externalTool), ...personalTools], bySearch.map((tool) => searchable(tool, externalTool(tool))));
    const searched = new Set(bySearch.map((tool) => tool.name));
    const overview = (): ToolOverview => ({
      tools: [
        ...describe(builtInOnly),
        ...[...enabled, ...own].map((tool) => ({
          name: tool.name,
          description: tool.description,
          needsApproval: tool.needsApproval,
          server: tool.server,
          action: tool.tool,
          ...(searched.has(tool.name) ? { bySearch: true } : {}),
        })),
      ],
      servers: servers(),
    });
    if (registry === builtInOnly) return withOverview(builtInOnly, overview);
    overviews.set(registry, overview);
    return registry;
  };
}

/** Who a run's tool calls act as on per-person servers, and the run (a sign-in it let expire is not asked again). */
export interface ChannelToolOptions {
  mcpServers?: readonly string[];
  speaker?: Speaker;
  runId?: number;
}

/** For `/ask tools`: what the channel offers, which calls wait for approval, and each server's state. */
export function describeChannelTools(registry: ToolRegistry): ToolOverview {
  return overviews.get(registry)?.() ?? { tools: describe(registry), servers: [] };
}

/**
 * Which MCP tools go into every request and which wait behind search_tools. Within the budget: all of them. Past
 * it: the servers chosen for this channel (whole servers, in mcp.json's order, as far as they fit), and search for
 * the rest. The request never carries more than the model takes (OPENAI_TOOL_LIMIT).
 */
export function splitByBudget(
  enabled: McpTool[],
  budget: ToolBudget,
  builtInCount: number,
  chosenByChannel: boolean,
): { upFront: McpTool[]; bySearch: McpTool[] } {
  const room = Math.min(budget.maxTools, OPENAI_TOOL_LIMIT - builtInCount - 1);
  const tokens = new Map(enabled.map((tool) => [tool, schemaTokens(tool)]));
  const total = [...tokens.values()].reduce((sum, n) => sum + n, 0);
  if (enabled.length <= room && total <= budget.maxSchemaTokens) return { upFront: enabled, bySearch: [] };

  const upFront: McpTool[] = [];
  let used = 0;
  for (const server of [...new Set(enabled.map((tool) => tool.server))]) {
    const own = enabled.filter((tool) => tool.server === server);
    if (!chosenByChannel && !own[0]!.channelScoped) continue;
    const cost = own.reduce((sum, tool) => sum + tokens.get(tool)!, 0);
    if (upFront.length + own.length > room || used + cost > budget.maxSchemaTokens) continue;
    upFront.push(...own);
    used += cost;
  }
  const kept = new Set(upFront);
  return { upFront, bySearch: enabled.filter((tool) => !kept.has(tool)) };
}

/** What one tool's schema costs a request, as the model endpoint receives it. */
export function schemaTokens(tool: { name: string; description: string; parameters: Record<string, unknown> }): number {
  return countTokens(JSON.stringify({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }), BUDGET_ENCODING_MODEL);
}

/**
 * One run's tools: those offered up front, search_tools, and what it found (offered from the next model call on).
 * Every tool the channel may use is callable by name, found or not, and is offered from then on: a run resumed after
 * an approval gets fresh tools, and its waiting call still resolves.
 */
function createRunTools(builtIn: ToolRegistry, upFront: Tool[], hidden: SearchableTool[]): ToolRegistry {
  const found = new Map<string, Tool>();
  const tools = [...builtIn.names().map((name) => builtIn.get(name)!), ...upFront];
  const offer = (tool: Tool) => {
    found.delete(tool.name);
    found.set(tool.name, tool);
    // The request may carry at most OPENAI_TOOL_LIMIT tools: the earliest found leave the list (still callable).
    for (const name of found.keys()) {
      if (tools.length + found.size <= OPENAI_TOOL_LIMIT) break;
      found.delete(name);
    }
  };
  if (hidden.length > 0) tools.push(createSearchToolsTool(hidden, (entries) => entries.forEach((entry) => offer(entry.tool))));
  const base = createToolRegistry(tools);
  const callable = new Map(hidden.map((entry) => [entry.tool.name, entry.tool]));
  return {
    specs: () => (found.size === 0 ? base.specs() : [...base.specs(), ...[...found.values()].map(specOf)]),
    get: (name) => {
      const own = base.get(name);
      if (own) return own;
      const other = callable.get(name);
      if (other && !found.has(name)) offer(other);
      return other;
    },
    names: () => [...base.names(), ...found.keys()],
  };
}

function searchable(tool: McpTool, made: Tool): SearchableTool {
  return {
    tool: made,
    server: tool.server,
    action: tool.tool,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    parameters: tool.parameters,
    needsApproval: tool.needsApproval,
  };
}

function specOf(tool: Tool): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.jsonSchema ?? {} };
}

function describe(registry: ToolRegistry): ToolOverview['tools'] {
  return registry
    .names()
    .filter((name) => name !== SEARCH_TOOLS_NAME)
    .map((name) => {
      const tool = registry.get(name)!;
      return { name, description: tool.description, needsApproval: tool.approval !== undefined };
    });
}

/** The shared built-in registry, with this channel's overview (a thin copy: the WeakMap needs its own key). */
function withOverview(registry: ToolRegistry, overview: () => ToolOverview): ToolRegistry {
  const copy: ToolRegistry = { specs: () => registry.specs(), get: (name) => registry.get(name), names: () => registry.names() };
  overviews.set(copy, overview);
  return copy;
}

/** A shared server's tool: called with the server's one credential from mcp.json. */
function toExternalTool(hub: McpHub, tool: McpTool, approveNow: ApproveNow | undefined): Tool {
  return toMcpTool(tool, approveNow, (args, options) => hub.call(tool.name, args, options));
}

/** A per-person server's tool: called with the speaker's own account; SignInRequired when they must connect first. */
function toPersonalTool(personal: PersonalServers, tool: McpTool, caller: { speaker?: Speaker; runId?: number }, approveNow: ApproveNow | undefined): Tool {
  const runId = caller.runId !== undefined ? { runId: caller.runId } : {};
  return toMcpTool(tool, approveNow, (args, options) => personal.call(tool.name, args, { as: caller.speaker, ...runId, ...options }));
}

/** An MCP tool as the model sees it, whichever account `call` uses: approval as mcp.json says, images checked. */
function toMcpTool(
  tool: McpTool,
  approveNow: ApproveNow | undefined,
  call: (args: Record<string, unknown>, options: { signal: AbortSignal; maxChars: number }) => Promise<McpToolResult>,
): Tool {
  return createExternalTool({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    server: tool.server,
    action: tool.tool,
    needsApproval: tool.needsApproval,
    hints: { readOnly: tool.hints.readOnly, destructive: tool.hints.destructive },
    approveNow,
    async call(args, { signal, maxChars }) {
      const result = await call(args, { signal, maxChars });
      return { text: result.text, images: showableImages(tool, result) };
    },
  });
}

/** Images a server returned, checked by their bytes: only formats the model can be shown. */
function showableImages(tool: McpTool, result: McpToolResult) {
  return result.images.flatMap((image, i) => {
    const bytes = Buffer.from(image.data, 'base64');
    const format = detectImageFormat(bytes);
    if (!format || !SHOWABLE_IMAGE_FORMATS.has(format)) return [];
    return [{ dataUrl: `data:${imageMimeType(format)};base64,${image.data}`, name: `${tool.tool} image ${i + 1}` }];
  });
}
