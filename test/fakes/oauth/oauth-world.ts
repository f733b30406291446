/**
 * A small OAuth world on loopback for per-person sign-in tests: an authorization server (metadata at
 * /.well-known/oauth-authorization-server, dynamic client registration at /register, /authorize that signs in
 * whichever test user `signInAs` chose and redirects back with a code, /token with the PKCE check and the
 * refresh_token grant (rotating), /revoke) and an MCP server over Streamable HTTP that requires its bearer tokens
 * (protected-resource metadata at /.well-known/oauth-protected-resource/mcp, 401 with WWW-Authenticate otherwise)
 * and records which user's token called which tool.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

interface IssuedToken {
  user: string;
  clientId: string;
  expiresAt: number;
  revoked: boolean;
}

export interface OAuthWorld {
  asUrl: string;
  /** The MCP server's URL (…/mcp), for mcp.json. */
  mcpUrl: string;
  /** Who the next /authorize signs in (auto-approved). */
  signInAs(user: string): void;
  /** Every access and refresh token ever issued, raw: for the scan that proves none is stored unencrypted. */
  issued(): string[];
  /** Access tokens issued from now on last this long. */
  setAccessTtlMs(ms: number): void;
  /** Ends every token of this user (access and refresh), as an admin revoking the app at the server would. */
  revokeUser(user: string): void;
  /** The user's current access tokens run out now (their refresh tokens still work). */
  expireAccessTokens(user: string): void;
  /** tools/call as recorded by the MCP server: which user's token, which tool, which arguments. */
  calls: Array<{ user: string; tool: string; args: Record<string, unknown> }>;
  counts: { registrations: number; authorizations: number; codeExchanges: number; refreshes: number; unauthorized: number };
  close(): Promise<void>;
}

export async function startOAuthWorld(): Promise<OAuthWorld> {
  const clients = new Map<string, { redirectUris: string[] }>();
  const codes = new Map<string, { user: string; clientId: string; redirectUri: string; challenge: string; resource?: string; used: boolean }>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, IssuedToken>();
  const issued: string[] = [];
  const calls: OAuthWorld['calls'] = [];
  const counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, unauthorized: 0 };
  let nextUser = 'nobody';
  let accessTtlMs = 3_600_000;

  const issue = (user: string, clientId: string) => {
    const access = `at-${user}-${randomBytes(12).toString('hex')}`;
    const refresh = `rt-${user}-${randomBytes(12).toString('hex')}`;
    issued.push(access, refresh);
    accessTokens.set(access, { user, clientId, expiresAt: Date.now() + accessTtlMs, revoked: false });
    refreshTokens.set(refresh, { user, clientId, expiresAt: Date.now() + 86_400_000, revoked: false });
    return { access_token: access, token_type: 'Bearer', expires_in: Math.max(1, Math.round(accessTtlMs / 1000)), refresh_token: refresh, scope: 'tickets:read' };
  };

  // ---- the authorization server
  let asBase = '';
  const authorizationServer = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', asBase);
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: asBase,
        authorization_endpoint: `${asBase}/authorize`,
        token_endpoint: `${asBase}/token`,
        registration_endpoint: `${asBase}/register`,
        revocation_endpoint: `${asBase}/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['tickets:read'],
      });
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      const body = JSON.parse(await readBody(req)) as { redirect_uris?: string[] };
      const clientId = `client-${randomUUID()}`;
      clients.set(clientId, { redirectUris: body.redirect_uris ?? [] });
      counts.registrations++;
      return json(res, 201, { ...body, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: 'none' });
    }
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      const client = clients.get(q.get('client_id') ?? '');
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!client || !client.redirectUris.includes(redirectUri)) return json(res, 400, { error: 'invalid_client' });
      if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) return json(res, 400, { error: 'invalid_request', error_description: 'PKCE required' });
      const code = `code-${randomBytes(8).toString('hex')}`;
      codes.set(code, { user: nextUser, clientId: q.get('client_id')!, redirectUri, challenge: q.get('code_challenge')!, resource: q.get('resource') ?? undefined, used: false });
      counts.authorizations++;
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      if (form.get('grant_type') === 'authorization_code') {
        const grant = codes.get(form.get('code') ?? '');
        if (!grant || grant.used || grant.clientId !== form.get('client_id') || grant.redirectUri !== form.get('redirect_uri')) {
          return json(res, 400, { error: 'invalid_grant', error_description: 'unknown or used code' });
        }
        const challenge = createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url');
        if (challenge !== grant.challenge) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        if (grant.resource !== undefined && form.get('resource') !== grant.resource) return json(res, 400, { error: 'invalid_target' });
        grant.used = true;
        counts.codeExchanges++;
        return json(res, 200, issue(grant.user, grant.clientId));
      }
      if (form.get('grant_type') === 'refresh_token') {
        const old = refreshTokens.get(form.get('refresh_token') ?? '');
        if (!old || old.revoked || old.clientId !== form.get('client_id')) return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
        old.revoked = true; // rotation
        counts.refreshes++;
        return json(res, 200, issue(old.user, old.clientId));
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    if (url.pathname === '/revoke' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      const token = form.get('token') ?? '';
      for (const map of [accessTokens, refreshTokens]) {
        const entry = map.get(token);
        if (entry) entry.revoked = true;
      }
      res.writeHead(200);
      return res.end();
    }
    return json(res, 404, { error: 'not found' });
  });
  asBase = `http://127.0.0.1:${authorizationServer.port}`;

  // ---- the MCP server that needs a person's bearer token
  let mcpBase = '';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const buildServer = (userOf: () => string) => {
    const server = new McpServer({ name: 'tickets', version: '1.0.0' });
    server.registerTool('search_issues', { description: 'Search issues visible to you.', inputSchema: { query: z.string() } }, async ({ query }) => {
      calls.push({ user: userOf(), tool: 'search_issues', args: { query } });
      return { content: [{ type: 'text', text: `issues for ${userOf()} matching ${query}: TCK-1` }] };
    });
    server.registerTool('whoami', { description: 'Who you are signed in as.' }, async () => {
      calls.push({ user: userOf(), tool: 'whoami', args: {} });
      return { content: [{ type: 'text', text: `you are ${userOf()}` }] };
    });
    return server;
  };
  const mcp = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', mcpBase);
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      return json(res, 200, { resource: `${mcpBase}/mcp`, authorization_servers: [asBase], scopes_supported: ['tickets:read'], bearer_methods_supported: ['header'] });
    }
    if (url.pathname !== '/mcp') return json(res, 404, { error: 'not found' });
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const token = bearer ? accessTokens.get(bearer) : undefined;
    if (!token || token.revoked || token.expiresAt <= Date.now()) {
      counts.unauthorized++;
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': `Bearer error="invalid_token", resource_metadata="${mcpBase}/.well-known/oauth-protected-resource/mcp"`,
      });
      return res.end(JSON.stringify({ error: 'invalid_token' }));
    }
    // The user is taken from each request's token, not from the session: a session cannot carry someone else.
    const current = { user: token.user };
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId);
      if (!transport) return json(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
      (transport as unknown as { currentUser: { user: string } }).currentUser = current;
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return json(res, 405, { error: 'method not allowed' });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    (transport as unknown as { currentUser: { user: string } }).currentUser = current;
    await buildServer(() => (transport as unknown as { currentUser: { user: string } }).currentUser.user).connect(transport);
    await transport.handleRequest(req, res);
  });
  mcpBase = `http://127.0.0.1:${mcp.port}`;

  return {
    asUrl: asBase,
    mcpUrl: `${mcpBase}/mcp`,
    signInAs: (user) => void (nextUser = user),
    issued: () => [...issued],
    setAccessTtlMs: (ms) => void (accessTtlMs = ms),
    revokeUser(user) {
      for (const map of [accessTokens, refreshTokens]) for (const entry of map.values()) if (entry.user === user) entry.revoked = true;
    },
    expireAccessTokens(user) {
      for (const entry of accessTokens.values()) if (entry.user === user) entry.expiresAt = 0;
    },
    calls,
    counts,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => {})));
      await Promise.all([authorizationServer.close(), mcp.close()]);
    },
  };
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String(error) });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
