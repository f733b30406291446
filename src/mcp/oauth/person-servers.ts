/**
 * MCP servers with `"auth": "oauth"`: used with the account of the person a run answers, never anyone else's. A
 * call names its speaker (team + Slack user); it goes through a client connected with THAT person's provider
 * (PersonAuthProvider, tokens from the database), one per (person, server), opened on first use and closed after
 * `idleMs` without calls. Someone not connected — or whose refresh failed, or whose grant was revoked (a 401 the
 * SDK's auth() cannot fix by refreshing) — gets SignInRequired with the authorization URL, which the run turns into
 * a parked run and a private Connect prompt (runs/park-for-sign-in.ts).
 *
 * The tools offered before the speaker has connected (the model must be able to ask for a tool that needs a
 * sign-in):
 *   - the server's tool list as last listed by anyone who connected, kept in the database (oauth_servers.tools) and
 *     refreshed whenever someone connects; a call to one of them by someone not connected asks them to sign in;
 *   - and always one more tool, `<server>__connect` ("connect your <server> account") — before anyone ever
 *     connected, the only one. Its call asks the speaker to sign in (or answers "connected" when they are); the
 *     callback lists the server's tools with the new token, and the resumed attempt (which builds its tools afresh
 *     after reload()) is offered the real list.
 * The list is the same for everyone (approval rules from mcp.json apply as for any server); a tool a person's own
 * account may not use is refused by the server for them.
 */
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { findCause, messageOf } from '../../core/errors';
import { SignInRequired } from '../../core/sign-in';
import type { Logger } from '../../logging/logger';
import { catalogueServerTools, isEnabledIn, type McpTool } from '../catalogue';
import { convertToolResult, type McpToolResult } from '../convert-result';
import { describeError } from '../describe-error';
import { McpToolFailure } from '../failures';
import type { McpConfig, McpServerConfig } from '../mcp-config';
import { sanitiseNamePart, SERVER_TOOL_SEPARATOR } from '../tool-names';
import type { OAuthStore, PersonServerKey } from './oauth-store';
import { PersonAuthProvider } from './person-auth-provider';

export interface Speaker {
  teamId: string;
  userId: string;
}

interface PersonalCallOptions {
  /** The person the run answers (a scheduled task: its owner). Required: a per-person server has no shared account. */
  as: Speaker | undefined;
  /** The run making the call: a sign-in that already expired unused in this run is not asked for again. */
  runId?: number;
  signal?: AbortSignal;
  maxChars?: number;
}

export interface PersonalServers {
  /** The mcp.json servers with `"auth": "oauth"`, in file order. */
  readonly servers: readonly McpServerConfig[];
  /** Whether a tool name belongs to a per-person server. */
  owns(name: string): boolean;
  /** Tools offered in a channel: each server's last-listed tools, or its `<server>__connect` tool. */
  tools(channelId: string | undefined): McpTool[];
  /** Throws SignInRequired (the speaker must connect) or McpToolFailure. */
  call(name: string, args: unknown, options: PersonalCallOptions): Promise<McpToolResult>;
  /** Whether the person has a grant for the server (App Home). */
  isConnected(as: Speaker, server: string): Promise<boolean>;
  /** Disconnect: the grant goes and their open connection is closed. */
  disconnect(as: Speaker, server: string): Promise<boolean>;
  /**
   * The callback's half of a sign-in: exchanges the code (SDK auth() with the verifier kept for the state), stores
   * the tokens as this person's, then connects with them and lists the server's tools, so the run that resumes is
   * offered the real tools (kept in the database for every replica). A listing failure does not undo the sign-in.
   */
  finishSignIn(server: McpServerConfig, key: PersonServerKey, code: string, codeVerifier: string): Promise<void>;
  /**
   * The servers' tool lists from the database again (another replica's sign-in may have listed them). Call it
   * before building an attempt's tools; tools() also reloads in the background once the lists are a minute old.
   */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export interface PersonalServersOptions {
  store: OAuthStore;
  /** `${PUBLIC_URL}/oauth/callback`. */
  redirectUrl: string;
  logger: Logger;
  clientInfo?: { name: string; version: string };
  /** A person's connection is closed after this long without a call. Default 5 minutes. */
  idleMs?: number;
  /** Per connection attempt (discovery, registration and refresh included). Default 30 s. */
  connectTimeoutMs?: number;
  maxResultChars?: number;
  maxImageBytes?: number;
  /** How old the in-memory tool lists may get before tools() reloads them in the background. Default 60 s. */
  reloadEveryMs?: number;
  now?: () => number;
}

const CONNECT_TOOL = 'connect';
const CallToolAnswer = z.looseObject({});
const ListToolsPage = z.looseObject({ tools: z.array(z.unknown()).catch([]), nextCursor: z.string().optional().catch(undefined) });

interface PersonConnection {
  key: PersonServerKey;
  client: Client;
  transport: StreamableHTTPClientTransport;
  provider: PersonAuthProvider;
  lastUsed: number;
}

export async function createPersonalServers(config: McpConfig, options: PersonalServersOptions): Promise<PersonalServers> {
  const servers = config.servers.filter((server) => server.auth?.kind === 'oauth' && server.transport.kind === 'http');
  const now = options.now ?? Date.now;
  const idleMs = options.idleMs ?? 5 * 60_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const logger = options.logger;
  const catalogues = new Map<string, McpTool[]>();
  const listed = new Map<string, unknown[]>();
  const connections = new Map<string, PersonConnection>();
  const opening = new Map<string, Promise<PersonConnection>>();
  let loadedAt = 0;
  let reloading: Promise<void> | undefined;

  const prefixOf = (server: McpServerConfig) => `${sanitiseNamePart(server.name)}${SERVER_TOOL_SEPARATOR}`;
  const connectToolName = (server: McpServerConfig) => `${prefixOf(server)}${CONNECT_TOOL}`;
  const keyString = (key: PersonServerKey) => JSON.stringify([key.teamId, key.userId, key.server]);

  const useTools = (server: McpServerConfig, tools: unknown[]) => {
    listed.set(server.name, tools);
    catalogues.set(server.name, catalogueServerTools(server, tools).tools);
  };

  const reload = async () => {
    for (const server of servers) {
      const cached = await options.store.cachedTools(server.name);
      if (cached) useTools(server, cached);
      else {
        listed.delete(server.name);
        catalogues.delete(server.name);
      }
    }
    loadedAt = now();
  };
  await reload();

  const connectTool = (server: McpServerConfig): McpTool => ({
    name: connectToolName(server),
    server: server.name,
    tool: CONNECT_TOOL,
    description: catalogues.has(server.name)
      ? `Connect the person you are answering to their own ${server.name} account. Only needed when they ask to (re)connect: calling any other ${server.name} tool asks them to sign in when they have not.`
      : `Connect the person you are answering to their own ${server.name} account. ${server.name} is used with each person's own account and nobody has connected it yet, so its tools are not listed. Call this when the question needs ${server.name}: the person gets a private Connect button, and once they have signed in this answer continues with ${server.name}'s tools available.`,
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    needsApproval: false,
    hints: { readOnly: true },
  });

  // The connect tool stays beside the real list: a call to it parked before the list was known must still resolve.
  const offeredTools = (server: McpServerConfig) => [...(catalogues.get(server.name) ?? []), connectTool(server)];

  /** `connect`: the synthetic `<server>__connect` (or a call to it from before the server's tools were known). */
  const resolve = (name: string): { server: McpServerConfig; tool: McpTool; connect: boolean } | undefined => {
    for (const server of servers) {
      if (!name.startsWith(prefixOf(server))) continue;
      const tool = catalogues.get(server.name)?.find((candidate) => candidate.name === name);
      if (tool) return { server, tool, connect: false };
      if (name === connectToolName(server)) return { server, tool: connectTool(server), connect: true };
    }
    return undefined;
  };

  const providerFor = (server: McpServerConfig, key: PersonServerKey) =>
    new PersonAuthProvider({ store: options.store, key, server, redirectUrl: options.redirectUrl, clientName: options.clientInfo?.name });

  const signInNeeded = async (server: McpServerConfig, key: PersonServerKey, provider: PersonAuthProvider, runId: number | undefined, cause: unknown): Promise<never> => {
    const started = provider.signIn;
    if (runId !== undefined && (await options.store.signInExpired(runId, key))) {
      throw new McpToolFailure(
        'mcp_server_unavailable',
        `<@${key.userId}> was asked to connect their ${server.name} account for this answer and did not (they declined, or the link expired after 10 minutes), so the ${server.name} tool did not run. Answer without it, and say they can connect ${server.name} by asking again.`,
        server.name,
        CONNECT_TOOL,
        { cause },
      );
    }
    if (!started) {
      throw new McpToolFailure('mcp_server_unavailable', `The MCP server "${server.name}" asked for a sign-in, but no sign-in could be started (${messageOf(cause)}). Answer without it.`, server.name, CONNECT_TOOL, { cause });
    }
    logger.info('MCP server needs the person to connect their account', { mcpServer: server.name, userId: key.userId });
    throw new SignInRequired({ server: server.name, teamId: key.teamId, userId: key.userId, authorizationUrl: started.authorizationUrl, requestId: started.requestId }, { cause });
  };

  const isAuthFailure = (error: unknown) =>
    findCause(error, (cause): cause is unknown => cause instanceof UnauthorizedError || (cause instanceof StreamableHTTPError && cause.code === 401)) !== undefined;

  /** Opens the person's connection (their token; refreshed by the SDK when refused), or throws SignInRequired. */
  const open = async (server: McpServerConfig, key: PersonServerKey, runId: number | undefined): Promise<PersonConnection> => {
    const id = keyString(key);
    const existing = connections.get(id);
    if (existing) return existing;
    const inFlight = opening.get(id);
    if (inFlight) return inFlight;
    const attempt = (async () => {
      const provider = providerFor(server, key);
      // Nobody connected yet: start the sign-in without a round trip that can only be refused.
      if (!(await provider.tokens())) {
        const result = await auth(provider, { serverUrl: serverUrl(server) }).catch((error: unknown) => signInNeeded(server, key, provider, runId, error));
        if (result === 'REDIRECT') return signInNeeded(server, key, provider, runId, undefined);
      }
      const transport = new StreamableHTTPClientTransport(new URL(serverUrl(server)), { authProvider: provider });
      const client = new Client(options.clientInfo ?? { name: 'threadwise', version: '0.1.0' }, { capabilities: {} });
      try {
        await client.connect(transport, { timeout: connectTimeoutMs });
        const tools = await listTools(client, connectTimeoutMs);
        useTools(server, tools);
        await options.store.saveTools(server.name, tools);
        await options.store.touch(key);
      } catch (error) {
        await client.close().catch(() => {});
        if (isAuthFailure(error)) {
          // A 401 even after a successful auth(): the server does not take this grant (revoked): sign in afresh.
          if (!provider.signIn) {
            await provider.invalidateCredentials('tokens');
            const retry = providerFor(server, key);
            await auth(retry, { serverUrl: serverUrl(server) }).catch(() => undefined);
            return signInNeeded(server, key, retry, runId, error);
          }
          return signInNeeded(server, key, provider, runId, error);
        }
        throw new McpToolFailure('mcp_server_unavailable', `The MCP server "${server.name}" is not reachable right now (${describeError(error).reason}). Answer without it and say that this tool is unavailable at the moment.`, server.name, CONNECT_TOOL, { cause: error });
      }
      const connection: PersonConnection = { key, client, transport, provider, lastUsed: now() };
      client.onclose = () => {
        if (connections.get(id) === connection) connections.delete(id);
      };
      connections.set(id, connection);
      return connection;
    })();
    opening.set(id, attempt);
    try {
      return await attempt;
    } finally {
      opening.delete(id);
    }
  };

  const drop = async (id: string) => {
    const connection = connections.get(id);
    connections.delete(id);
    if (!connection) return;
    await connection.transport.terminateSession().catch(() => {});
    await connection.client.close().catch(() => {});
  };

  const sweep = setInterval(() => {
    const cutoff = now() - idleMs;
    for (const [id, connection] of connections) if (connection.lastUsed < cutoff) void drop(id);
  }, Math.max(1_000, Math.min(idleMs, 60_000)));
  sweep.unref();

  return {
    servers,
    owns: (name) => servers.some((server) => name.startsWith(prefixOf(server))),

    tools(channelId) {
      if (now() - loadedAt > (options.reloadEveryMs ?? 60_000) && !reloading) {
        reloading = reload()
          .catch((error: unknown) => logger.warn('could not reload the per-person servers\u2019 tool lists', { error: messageOf(error) }))
          .finally(() => (reloading = undefined));
      }
      return servers.filter((server) => isEnabledIn(server, channelId)).flatMap(offeredTools);
    },

    async call(name, args, callOptions) {
      const resolved = resolve(name);
      if (!resolved) throw new McpToolFailure('mcp_unknown_tool', `There is no MCP tool named "${name}".`, undefined, name);
      const { server, tool, connect } = resolved;
      if (!callOptions.as) {
        throw new McpToolFailure('mcp_server_unavailable', `${name} acts with the account of the person asking, and this conversation has none, so it did not run.`, server.name, tool.tool);
      }
      if (args === undefined || args === null) args = {};
      if (typeof args !== 'object' || Array.isArray(args)) {
        throw new McpToolFailure('mcp_invalid_arguments', `${name} takes its arguments as a JSON object of named values.`, server.name, tool.tool);
      }
      const key: PersonServerKey = { teamId: callOptions.as.teamId, userId: callOptions.as.userId, server: server.name };
      const signal = callOptions.signal ?? new AbortController().signal;
      for (let retried = false; ; retried = true) {
        const connection = await open(server, key, callOptions.runId);
        connection.lastUsed = now();
        if (connect) {
          const names = (catalogues.get(server.name) ?? []).map((t) => t.name);
          return {
            name,
            server: server.name,
            tool: CONNECT_TOOL,
            text: `Connected: <@${key.userId}>'s ${server.name} account is connected. ${server.name}'s tools are offered from the next step of this answer${names.length ? `: ${names.join(', ')}` : ''}.`,
            images: [],
            isError: false,
            truncated: false,
          };
        }
        try {
          const result = await connection.client.request({ method: 'tools/call', params: { name: tool.tool, arguments: args as Record<string, unknown> } }, CallToolAnswer, {
            signal,
            timeout: server.timeoutMs,
          });
          return convertToolResult(result, { name, server: server.name, tool: tool.tool }, {
            maxChars: callOptions.maxChars ?? options.maxResultChars ?? 40_000,
            maxImageBytes: options.maxImageBytes ?? 4 * 1024 * 1024,
          });
        } catch (error) {
          if (signal.aborted) throw new McpToolFailure('mcp_cancelled', `${name} was stopped before it finished.`, server.name, tool.tool, { cause: error });
          const described = describeError(error, true);
          // The SDK already tried to refresh and had to start a sign-in: the grant is gone (revoked, refresh refused).
          if (isAuthFailure(error) && connection.provider.signIn) {
            await drop(keyString(key));
            return signInNeeded(server, key, connection.provider, callOptions.runId, error);
          }
          if (isAuthFailure(error) || described.kind === 'session_expired' || described.kind === 'unreachable') {
            // The grant stopped working mid-session (revoked; refresh refused), the session expired, or the
            // connection went: start again once — with a new sign-in if the grant is gone.
            await drop(keyString(key));
            if (!retried) continue;
          }
          if (described.kind === 'timeout') {
            throw new McpToolFailure('mcp_timeout', `${name} got no answer from the MCP server "${server.name}" in time and was cancelled; whether it took effect is unknown. Do not repeat it blindly.`, server.name, tool.tool, { cause: error });
          }
          if (described.kind === 'server_error') {
            throw new McpToolFailure('mcp_server_error', `The MCP server "${server.name}" refused ${name}: ${described.reason}. Check the arguments against the tool's parameters and try again, or answer without it.`, server.name, tool.tool, { cause: error });
          }
          throw new McpToolFailure('mcp_server_unavailable', `The MCP server "${server.name}" is not reachable right now (${described.reason}), so ${name} did not run. Answer without it.`, server.name, tool.tool, { cause: error });
        }
      }
    },

    async isConnected(as, server) {
      return (await options.store.tokens({ ...as, server })) !== undefined;
    },

    async disconnect(as, server) {
      const key = { ...as, server };
      await drop(keyString(key));
      return options.store.deleteGrant(key);
    },

    async finishSignIn(server, key, code, codeVerifier) {
      await finishSignIn(server, { store: options.store, key, redirectUrl: options.redirectUrl, code, codeVerifier, ...(options.clientInfo ? { clientName: options.clientInfo.name } : {}) });
      await drop(keyString(key)); // a connection with the person's old grant, if any
      try {
        await open(server, key, undefined);
      } catch (error) {
        logger.warn('connected, but the server’s tools could not be listed yet', { mcpServer: server.name, reason: messageOf(error).slice(0, 200) });
      }
    },

    reload,

    async close() {
      clearInterval(sweep);
      await Promise.all([...connections.keys()].map(drop));
    },
  };
}

function serverUrl(server: McpServerConfig): string {
  if (server.transport.kind !== 'http') throw new Error(`"${server.name}" is not an HTTP server`);
  return server.transport.url;
}

async function listTools(client: Client, timeoutMs: number): Promise<unknown[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const answer = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsPage, { timeout: timeoutMs });
    tools.push(...answer.tools);
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/**
 * The callback's half of a sign-in: exchanges the authorization code (with the verifier kept for the state) through
 * the SDK's auth(), which stores the person's tokens via their provider. Throws when the server refuses the code.
 */
async function finishSignIn(
  server: McpServerConfig,
  request: { store: OAuthStore; key: PersonServerKey; redirectUrl: string; code: string; codeVerifier: string; clientName?: string },
): Promise<void> {
  const provider = new PersonAuthProvider({
    store: request.store,
    key: request.key,
    server,
    redirectUrl: request.redirectUrl,
    codeVerifier: request.codeVerifier,
    ...(request.clientName ? { clientName: request.clientName } : {}),
  });
  const result = await auth(provider, { serverUrl: serverUrl(server), authorizationCode: request.code });
  if (result !== 'AUTHORIZED') throw new Error(`the server did not accept the sign-in (${result})`);
}
