/**
 * The tools a channel offers: threadwise's own everywhere, plus the MCP servers' tools enabled there, each as an
 * external tool that waits for approval when mcp.json says so (parked in a thread, or asked on the spot through
 * `approveNow` where the person is at hand). Images a server returns are checked by their bytes
 * before the model sees them.
 */
import type { ApproveNow } from '../core/approval';
import { detectImageFormat, imageMimeType, SHOWABLE_IMAGE_FORMATS } from '../files/image-format';
import { OPENAI_TOOL_LIMIT, type McpHub, type McpTool } from '../mcp';
import { createExternalTool } from '../tools/external-tool';
import { createToolRegistry, type ToolRegistry } from '../tools/registry';
import type { Tool } from '../tools/tool';

export function createChannelTools(
  builtIn: Tool[],
  hub: McpHub | undefined,
  options: { approveNow?: ApproveNow } = {},
): (channelId: string, options?: { mcpServers?: readonly string[] }) => ToolRegistry {
  const builtInOnly = createToolRegistry(builtIn);
  if (!hub) return () => builtInOnly;
  return (channelId, { mcpServers } = {}) => {
    // mcp.json's `channels` decides where a server may be used at all; the channel's settings narrow that further.
    const offered = mcpServers ? new Set(mcpServers) : undefined;
    const external = hub
      .tools(channelId, { limit: OPENAI_TOOL_LIMIT - builtIn.length })
      .filter((tool) => !offered || offered.has(tool.server));
    return external.length === 0 ? builtInOnly : createToolRegistry([...builtIn, ...external.map((tool) => toExternalTool(hub, tool, options.approveNow))]);
  };
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
      const images = result.images.flatMap((image, i) => {
        const bytes = Buffer.from(image.data, 'base64');
        const format = detectImageFormat(bytes);
        if (!format || !SHOWABLE_IMAGE_FORMATS.has(format)) return [];
        return [{ dataUrl: `data:${imageMimeType(format)};base64,${image.data}`, name: `${tool.tool} image ${i + 1}` }];
      });
      return { text: result.text, images };
    },
  });
}

/** For `/ask tools`: what the channel offers, and which calls wait for approval. */
export function describeChannelTools(registry: ToolRegistry): Array<{ name: string; description: string; needsApproval: boolean }> {
  return registry.names().map((name) => {
    const tool = registry.get(name)!;
    return { name, description: tool.description, needsApproval: tool.approval !== undefined };
  });
}
