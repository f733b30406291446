/**
 * MCP: tools from configured Model Context Protocol servers, for the model to call.
 *
 *   const loaded = await loadMcpConfig({ path: config.mcpConfigPath, env: process.env });  // or parseMcpConfig(text, env, file)
 *   if (!loaded.ok) → loaded.problems: one sentence each (file, server, what to fix); stop start-up
 *   logger secrets += loaded.config.secrets                       // header and env values, never to be logged
 *   const hub = await createMcpHub(loaded.config, { logger });   // waits ≤ 2 s for all servers; a slow one joins later,
 *                                                                 // a down one is retried; one named in a warning at 10 s
 *   hub.tools(channelId, { limit })  → McpTool[]                 // `<server>__<tool>`, cleaned schema, needsApproval, hints;
 *                                                                 // limit = OPENAI_TOOL_LIMIT minus threadwise's own tools
 *   hub.call(name, args, { signal, maxChars }) → McpToolResult    // text framed as tool data, isError, images (base64 as
 *                                                                 // declared: check the bytes before showing one)
 *                                       throws McpToolFailure     // code + a sentence for the model
 *   hub.health(channelId?) → { servers: [{ name, state, target, tools, since, lastError, nextRetryAt, … }] }   // for
 *                                                                 // /healthz and `/ask tools` (target: command or URL)
 *   await hub.close()                                             // stdio servers end with their process tree
 *
 * Per-person servers (`"auth": "oauth"`) are not in the hub: createPersonalServers(config, { store, redirectUrl, logger })
 * offers their tools and calls them as the speaker (`call(name, args, { as: { teamId, userId }, runId })`), throwing
 * SignInRequired (core/sign-in.ts) when that person must connect first.
 *
 * Approval is the caller's job: `needsApproval` comes from mcp.json (`approval`, `autoApprove`, and — only for a server
 * with `trustAnnotations: true` — the server's own `readOnlyHint` without `destructiveHint`); otherwise the hints are
 * in `hints` for display only.
 */
export { parseMcpConfig, type McpConfig, type McpServerConfig } from './mcp-config';
export { loadMcpConfig } from './load-mcp-config';
export { createMcpHub, type McpHub, type McpHubOptions } from './hub';
// Values from light modules are imported by their own paths (tool-names, load-mcp-config): importing this index loads
// the MCP SDK, which compose.ts and sign-in.ts load only when mcp.json names a server.
export type { McpTool } from './catalogue';
export type { McpToolResult } from './convert-result';
export type { ServerHealth } from './server-connection';
export { McpToolFailure, isMcpToolFailure } from './failures';
export { createPersonalServers, type PersonalServers, type Speaker } from './oauth/person-servers';
