/**
 * The tools a channel offers: threadwise's own everywhere, plus the MCP servers' tools enabled there, each as an
 * external tool that waits for approval when mcp.json says so (parked in a thread, or asked on the spot through
 * `approveNow` where the person is at hand). Images a server returns are checked by their bytes
 * before the model sees them.
 */
import type { ApproveNow } from '../core/approval';
import { detectImageFormat, imageMimeType, SHOWABLE_IMAGE_FORMATS } from '../files/image-format';
import { OPENAI_TOOL_LIMIT, type McpHub, type McpTool, type McpToolResult, type PersonalServers, type Speaker } from '../mcp';
import { createExternalTool } from '../tools/external-tool';
import { createToolRegistry, type ToolRegistry } from '../tools/registry';
import type { Tool } from '../tools/tool';

export function createChannelTools(
  builtIn: Tool[],
  hub: McpHub | undefined,
  options: { approveNow?: ApproveNow; personal?: PersonalServers } = {},
): (channelId: string, options?: ChannelToolOptions) => ToolRegistry {
  const builtInOnly = createToolRegistry(builtIn);
  const { personal } = options;
  if (!hub && !personal) return () => builtInOnly;
  return (channelId, { mcpServers, speaker, runId } = {}) => {
    // mcp.json's `channels` decides where a server may be used at all; the channel's settings narrow that further.
    const offered = mcpServers ? new Set(mcpServers) : undefined;
    // Per-person servers' tools act as the run's speaker (nobody else's account); the terminal has none.
    const own = (personal?.tools(channelId) ?? []).filter((tool) => !offered || offered.has(tool.server));
    const external = (hub?.tools(channelId, { limit: Math.max(0, OPENAI_TOOL_LIMIT - builtIn.length - own.length) }) ?? [])
      .filter((tool) => !offered || offered.has(tool.server));
    if (external.length === 0 && own.length === 0) return builtInOnly;
    return createToolRegistry([
      ...builtIn,
      ...external.map((tool) => toExternalTool(hub!, tool, options.approveNow)),
      ...own.map((tool) => toPersonalTool(personal!, tool, { speaker, runId }, options.approveNow)),
    ]);
  };
}

/** Who a run's tool calls act as on per-person servers, and the run (a sign-in it let expire is not asked again). */
export interface ChannelToolOptions {
  mcpServers?: readonly string[];
  speaker?: Speaker;
  runId?: number;
}

function toExternalTool(hub: McpHub, tool: McpTool, approveNow: ApproveNow | undefined): Tool {
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
      const result = await hub.call(tool.name, args, { signal, maxChars });
      return { text: result.text, images: showableImages(tool, result) };
    },
  });
}

/** A per-person server's tool: called with the speaker's own account; SignInRequired when they must connect first. */
function toPersonalTool(personal: PersonalServers, tool: McpTool, caller: { speaker?: Speaker; runId?: number }, approveNow: ApproveNow | undefined): Tool {
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
      const result = await personal.call(tool.name, args, { as: caller.speaker, ...(caller.runId !== undefined ? { runId: caller.runId } : {}), signal, maxChars });
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

/** For `/ask tools`: what the channel offers, and which calls wait for approval. */
export function describeChannelTools(registry: ToolRegistry): Array<{ name: string; description: string; needsApproval: boolean }> {
  return registry.names().map((name) => {
    const tool = registry.get(name)!;
    return { name, description: tool.description, needsApproval: tool.approval !== undefined };
  });
}
