/**
 * One initialised SDK client for one configured server. A `url` is tried with Streamable HTTP first and, when the
 * server answers the way servers of the older HTTP+SSE protocol do (400, 404 or 405 to the POST), with SSE — the
 * fallback the SDK documents for backwards compatibility. A `command` is started over stdio in a process group of
 * its own. Everything is bounded by `timeoutMs`, and a half-opened connection is closed again on failure (for stdio,
 * that ends the process it started).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ThreadwiseError, type ThreadwiseErrorOptions } from '../core/errors';
import type { McpServerConfig } from './mcp-config';
import { ProcessGroupStdioTransport } from './stdio-transport';

export type TransportKind = 'streamable-http' | 'sse' | 'stdio';

export interface OpenedClient {
  client: Client;
  transport: Transport;
  kind: TransportKind;
}

export interface OpenClientOptions {
  timeoutMs: number;
  clientInfo: { name: string; version: string };
  onStderrLine?: (line: string) => void;
  closeGraceMs?: number;
  /** Gives up at once (the hub is closing): the half-open connection is closed, a started program ended. */
  signal?: AbortSignal;
}

export class ConnectTimeoutError extends ThreadwiseError<'mcp_connect_timeout'> {
  override readonly name = 'ConnectTimeoutError';
  constructor(message: string, options?: ThreadwiseErrorOptions) {
    super('mcp_connect_timeout', message, options);
  }
}

export async function openClient(server: McpServerConfig, options: OpenClientOptions): Promise<OpenedClient> {
  const { transport: config } = server;
  if (config.kind === 'stdio') {
    const transport = new ProcessGroupStdioTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      ...(options.onStderrLine ? { onStderrLine: options.onStderrLine } : {}),
      ...(options.closeGraceMs === undefined ? {} : { closeGraceMs: options.closeGraceMs }),
    });
    return connect(transport, 'stdio', options);
  }
  const url = new URL(config.url);
  const requestInit = { headers: config.headers };
  if (!config.sseOnly) {
    try {
      return await connect(new StreamableHTTPClientTransport(url, { requestInit }), 'streamable-http', options);
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && [400, 404, 405].includes(error.code ?? 0))) throw error;
    }
  }
  return connect(new SSEClientTransport(url, { requestInit }), 'sse', options);
}

async function connect(transport: Transport, kind: TransportKind, options: OpenClientOptions): Promise<OpenedClient> {
  // No client capabilities: servers get no sampling, roots or elicitation from threadwise.
  const client = new Client(options.clientInfo, { capabilities: {} });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConnectTimeoutError(`no answer within ${Math.round(options.timeoutMs / 1000)} s`, { context: { timeoutMs: options.timeoutMs } })), options.timeoutMs);
    onAbort = () => reject(new Error('closed while connecting'));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    // The SDK's own timeout covers `initialize`; the race also covers starting the transport (an SSE stream that
    // never sends its endpoint, a program that never speaks).
    await Promise.race([client.connect(transport, { timeout: options.timeoutMs }), stop]);
    return { client, transport, kind };
  } catch (error) {
    // A program that exited on its own says why on stderr; that beats "connection closed".
    const exit = transport instanceof ProcessGroupStdioTransport ? transport.describeExit() : undefined;
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw exit ? new Error(`the program ${exit}`, { cause: error }) : error;
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
  }
}
