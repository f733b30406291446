/**
 * Every configured MCP server behind one small object: the tools a channel may use, calls by the name the model
 * used, and a health snapshot. One connection per server per process.
 */
import { createRedactor, type Logger } from '../logging/logger';
import { selectTools, isEnabledIn, type McpTool } from './catalogue';
import { convertToolResult, type McpToolResult } from './convert-result';
import { McpToolFailure } from './failures';
import type { McpConfig } from './mcp-config';
import { redactingLogger } from './redacting-logger';
import { ServerConnection, type RetryPolicy, type ServerHealth } from './server-connection';
import { sanitiseNamePart, SERVER_TOOL_SEPARATOR } from './tool-names';
import { OPENAI_TOOL_LIMIT } from './tool-names';

export interface McpHubOptions {
  logger: Logger;
  clock?: { now(): number };
  /** Per attempt to connect (and to list tools). Default 30 s: `npx -y` may download the server first. */
  connectTimeoutMs?: number;
  /**
   * How long createMcpHub waits for the first attempts, all servers together. A server still connecting then
   * carries on in the background (state `connecting`) and its tools appear when it is ready. Default 2 s.
   */
  startWaitMs?: number;
  /** A server still silent this long after start is named in one warning with its command or URL. Default 10 s. */
  slowStartWarnMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Default cap on a result's text, in characters. Default 40,000. */
  maxResultChars?: number;
  /** Larger images in results are described instead of kept. Default 4 MB. */
  maxImageBytes?: number;
  clientInfo?: { name: string; version: string };
  /** Each step of stopping a stdio server (stdin closed, SIGTERM, SIGKILL). Default 2 s. */
  closeGraceMs?: number;
}

interface McpCallOptions {
  signal?: AbortSignal;
  /** Cap on the result's text for this call (e.g. what the context has room for). */
  maxChars?: number;
}

interface McpHealth {
  servers: ServerHealth[];
}

export interface McpHub {
  /** The tools offered in a channel (undefined: no channel, e.g. the terminal chat), at most `limit` (default 128). */
  tools(channelId: string | undefined, options?: { limit?: number }): McpTool[];
  /** Calls a tool by the name the model used. Resolves with its result (isError included); throws McpToolFailure. */
  call(name: string, args: unknown, options?: McpCallOptions): Promise<McpToolResult>;
  /** Per server: state, tools, last error. With a channel: only the servers enabled there. */
  health(channelId?: string): McpHealth;
  /** Closes every connection; stdio servers are ended with their whole process tree. */
  close(): Promise<void>;
}

const DEFAULT_RETRY: RetryPolicy = { initialMs: 1_000, maxMs: 60_000, onDemandAfterMs: 5_000 };
const MAX_REMEMBERED_CUTS = 1_000;

/**
 * Opens every server in parallel and resolves when each has connected or failed its first attempt — or after
 * `startWaitMs` (2 s by default, for all of them together), so a slow or hanging server cannot hold up start-up:
 * it goes on connecting in the background, and is named in a warning if it stays silent.
 */
export async function createMcpHub(config: McpConfig, options: McpHubOptions): Promise<McpHub> {
  const redact = createRedactor(config.secrets);
  const logger = redactingLogger(options.logger, redact);
  const now = options.clock ? () => options.clock!.now() : Date.now;
  const maxResultChars = options.maxResultChars ?? 40_000;
  const maxImageBytes = options.maxImageBytes ?? 4 * 1024 * 1024;
  const loggedCuts = new Set<string>();
  let byName = new Map<string, { connection: ServerConnection; tool: McpTool }>();

  // Servers with "auth": "oauth" have no shared account to connect with: each person's calls go through
  // createPersonalServers (mcp/oauth/person-servers.ts) instead.
  const connections = config.servers.filter((server) => server.auth === undefined).map(
    (server) =>
      new ServerConnection(server, {
        logger,
        now,
        redact,
        retry: { ...DEFAULT_RETRY, ...options.retry },
        connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
        slowStartWarnMs: options.slowStartWarnMs ?? 10_000,
        clientInfo: options.clientInfo ?? { name: 'threadwise', version: '0.1.0' },
        ...(options.closeGraceMs === undefined ? {} : { closeGraceMs: options.closeGraceMs }),
        onToolsChanged: () => rebuildIndex(),
      }),
  );

  const rebuildIndex = () => {
    const index = new Map<string, { connection: ServerConnection; tool: McpTool }>();
    for (const connection of connections) {
      for (const tool of connection.tools) {
        const taken = index.get(tool.name);
        if (taken) {
          logger.warn(`MCP tools "${taken.tool.server}/${taken.tool.tool}" and "${tool.server}/${tool.tool}" get the same name ${tool.name}; only the first is offered (rename a server in mcp.json)`);
          continue;
        }
        index.set(tool.name, { connection, tool });
      }
    }
    byName = index;
    loggedCuts.clear();
  };

  let startWait: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(connections.map((connection) => connection.start())),
    new Promise((resolve) => (startWait = setTimeout(resolve, options.startWaitMs ?? 2_000))),
  ]);
  clearTimeout(startWait);
  rebuildIndex();

  const offered = (connection: ServerConnection) => connection.tools.filter((tool) => byName.get(tool.name)?.tool === tool);

  return {
    tools(channelId, { limit = OPENAI_TOOL_LIMIT } = {}) {
      const selection = selectTools(
        connections.map((connection) => ({ config: connection.config, tools: offered(connection) })),
        channelId,
        limit,
      );
      if (selection.cut.length > 0) {
        const key = `${channelId ?? ''}|${limit}|${selection.available}`;
        if (!loggedCuts.has(key)) {
          if (loggedCuts.size >= MAX_REMEMBERED_CUTS) loggedCuts.clear();
          loggedCuts.add(key);
          const cut = selection.cut.map(({ server, offered: kept, total }) => `"${server}" ${kept} of ${total}`).join(', ');
          logger.warn(
            `MCP: ${selection.available} tools are enabled in ${channelId ? `channel ${channelId}` : 'this conversation'} but the model takes at most ${limit}; offered: the first servers in mcp.json in full, then ${cut}. Narrow "channels" or add "disabledTools" in mcp.json to choose which.`,
          );
        }
      }
      return selection.tools;
    },

    async call(name, args, callOptions = {}) {
      const entry = byName.get(name);
      if (!entry) throw unknownTool(name, connections);
      const { connection, tool } = entry;
      if (args === undefined || args === null) args = {};
      if (typeof args !== 'object' || Array.isArray(args)) {
        throw new McpToolFailure('mcp_invalid_arguments', `${name} takes its arguments as a JSON object of named values, not ${Array.isArray(args) ? 'a list' : typeof args}.`, tool.server, tool.tool);
      }
      const signal = callOptions.signal ?? new AbortController().signal;
      const outcome = await connection.call(tool.tool, args as Record<string, unknown>, signal, connection.config.timeoutMs);
      if (outcome.ok) {
        return convertToolResult(outcome.result, { name, server: tool.server, tool: tool.tool }, {
          maxChars: callOptions.maxChars ?? maxResultChars,
          maxImageBytes,
        });
      }
      const server = `the MCP server "${tool.server}"`;
      const cause = outcome.cause === undefined ? undefined : { cause: outcome.cause };
      switch (outcome.kind) {
        case 'unavailable':
          throw new McpToolFailure('mcp_server_unavailable', `${capitalise(server)} is not reachable right now (${outcome.reason}), so ${name} did not run. Answer without it and say that this tool is unavailable at the moment.`, tool.server, tool.tool, cause);
        case 'timeout':
          throw new McpToolFailure('mcp_timeout', `${name} got no answer from ${server} within ${formatSeconds(connection.config.timeoutMs)} and was cancelled; whether it took effect on the server is unknown. Do not repeat it blindly: answer with what you have${tool.hints.readOnly ? ', or try once with a narrower request' : ' and say the outcome is unknown'}.`, tool.server, tool.tool, cause);
        case 'server_error':
          throw new McpToolFailure('mcp_server_error', `${capitalise(server)} refused ${name}: ${outcome.reason}. Check the arguments against the tool's parameters and try again, or answer without it.`, tool.server, tool.tool, cause);
        case 'cancelled':
          throw new McpToolFailure('mcp_cancelled', `${name} was stopped before it finished: the answer was cancelled or ran out of time.`, tool.server, tool.tool, cause);
      }
    },

    health(channelId) {
      const servers = connections.filter((connection) => channelId === undefined || isEnabledIn(connection.config, channelId));
      return { servers: servers.map((connection) => connection.health()) };
    },

    async close() {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}

function unknownTool(name: string, connections: ServerConnection[]): McpToolFailure {
  const connection = connections.find((c) => name.startsWith(`${sanitiseNamePart(c.config.name)}${SERVER_TOOL_SEPARATOR}`));
  const known = connection?.tools.map((tool) => tool.name) ?? [];
  const hint = connection
    ? known.length > 0
      ? ` The MCP server "${connection.config.name}" offers: ${known.join(', ')}.`
      : ` The MCP server "${connection.config.name}" offers no tools right now.`
    : '';
  return new McpToolFailure('mcp_unknown_tool', `There is no MCP tool named "${name}" (it may have been removed from its server or disabled in mcp.json).${hint}`, connection?.config.name, name);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
