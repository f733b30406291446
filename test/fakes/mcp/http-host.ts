/**
 * Serves an SDK-built MCP server on 127.0.0.1 over real HTTP: Streamable HTTP with sessions (the current protocol),
 * or the older HTTP+SSE protocol (`legacySse`) that clients still meet in the wild. Knobs for the failures a client
 * must survive: `expireSessions()` (the server forgets every session, so an old session id gets 404), `stop()` /
 * `restart()` (down and back on the same port), `requireHeaders` (401 without them, quoting the value presented).
 * `requests` records what
 * arrived, headers included, so tests can check what the client sent.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface McpHttpHostOptions {
  /** A new server for each session (the SDK's servers hold one transport each); they may share state. */
  createServer: () => McpServer | Server;
  /** Serve the older HTTP+SSE protocol (GET /sse + POST /messages) instead of Streamable HTTP. */
  legacySse?: boolean;
  /** Requests without these exact headers get 401. */
  requireHeaders?: Record<string, string>;
}

interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

export interface McpHttpHost {
  /** The URL a client is configured with: …/mcp, or …/sse in legacy mode. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Sessions currently open. */
  sessionCount(): number;
  /** Forget every session, as a restarted or load-balanced server does: old session ids now get 404. */
  expireSessions(): Promise<void>;
  /** Stop listening (connections refused) but keep the port for restart(). */
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startMcpHttpHost(options: McpHttpHostOptions): Promise<McpHttpHost> {
  const sessions = new Map<string, { transport: Transport; server: McpServer | Server }>();
  const requests: RecordedRequest[] = [];
  const path = options.legacySse ? '/sse' : '/mcp';

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers });
    for (const [name, value] of Object.entries(options.requireHeaders ?? {})) {
      // The refusal quotes what was presented, as careless servers do: tests prove it never reaches a log.
      if (req.headers[name.toLowerCase()] !== value) return sendJson(res, 401, { error: 'unauthorized', presented: req.headers[name.toLowerCase()] ?? null });
    }
    if (options.legacySse) return handleLegacy(req, res, url);
    if (url.pathname !== path) return sendJson(res, 404, { error: 'not found' });

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return sendJson(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
      return (session.transport as StreamableHTTPServerTransport).handleRequest(req, res);
    }
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
    const server = options.createServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const handleLegacy = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      const server = options.createServer();
      sessions.set(transport.sessionId, { transport, server });
      res.on('close', () => sessions.delete(transport.sessionId));
      await server.connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const session = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (!session) return sendJson(res, 404, { error: 'unknown session' });
      return (session.transport as SSEServerTransport).handlePostMessage(req, res);
    }
    // What an old server answers to a Streamable HTTP POST: the client then falls back to SSE.
    return sendJson(res, 405, { error: 'method not allowed' });
  };

  let http: HttpServer | undefined;
  let port = 0;
  const listen = async () => {
    const server = createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        console.error('[mcp-http-host] handler failed:', error);
        if (!res.headersSent) sendJson(res, 500, { error: String(error) });
        else res.destroy();
      });
    });
    server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as AddressInfo).port;
    http = server;
  };
  const closeSessions = async () => {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.all(open.map(({ server }) => server.close().catch(() => {})));
  };
  const stopListening = async () => {
    const server = http;
    http = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };

  await listen();
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    sessionCount: () => sessions.size,
    expireSessions: closeSessions,
    async stop() {
      await closeSessions();
      await stopListening();
    },
    restart: listen,
    async close() {
      await closeSessions();
      await stopListening();
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
