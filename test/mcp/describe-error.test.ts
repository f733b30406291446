import { describe, expect, it } from 'vitest';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from '../../src/mcp/describe-error';

const fetchFailed = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`connect ${code}`), { code }) });

describe('describeError', () => {
  it('names network failures the way a person reads them', () => {
    expect(describeError(fetchFailed('ECONNREFUSED'))).toEqual({ kind: 'unreachable', reason: 'connection refused' });
    expect(describeError(fetchFailed('ENOTFOUND'))).toEqual({ kind: 'unreachable', reason: 'host not found' });
    expect(describeError(fetchFailed('CERT_HAS_EXPIRED'))).toEqual({ kind: 'unreachable', reason: 'TLS certificate expired' });
    expect(describeError(Object.assign(new TypeError('fetch failed'), { cause: new Error('bad port') }))).toEqual({ kind: 'unreachable', reason: 'connection failed (bad port)' });
  });

  it('reads HTTP statuses from both transports, with a short piece of the body', () => {
    const refused = new StreamableHTTPError(401, 'Error POSTing to endpoint: {"error":"invalid_token"}');
    expect(describeError(refused)).toEqual({ kind: 'unreachable', reason: 'credentials refused (HTTP 401: {"error":"invalid_token"}); check the headers in mcp.json' });
    expect(describeError(new StreamableHTTPError(404, 'Error POSTing to endpoint: gone'), true)).toEqual({ kind: 'session_expired', reason: 'session expired (HTTP 404)' });
    expect(describeError(new StreamableHTTPError(404, 'Error POSTing to endpoint: null'), false)).toEqual({
      kind: 'unreachable',
      reason: 'nothing at that address (HTTP 404); check the url in mcp.json',
    });
    expect(describeError(new StreamableHTTPError(503, `Error POSTing to endpoint: <html>${' busy '.repeat(100)}</html>`)).reason).toMatch(/^server error \(HTTP 503: <html> busy busy .{100,}…\)$/);
    expect(describeError(new Error('Error POSTing to endpoint (HTTP 502): bad gateway'))).toEqual({ kind: 'unreachable', reason: 'server error (HTTP 502: bad gateway)' });
    expect(describeError(new StreamableHTTPError(422, 'Error POSTing to endpoint: nope'))).toEqual({ kind: 'server_error', reason: 'refused (HTTP 422: nope)' });
  });

  it('tells timeouts, closed connections and protocol errors apart', () => {
    expect(describeError(new McpError(ErrorCode.RequestTimeout, 'Request timed out'))).toEqual({ kind: 'timeout', reason: 'no answer in time' });
    expect(describeError(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'))).toEqual({ kind: 'unreachable', reason: 'the connection closed' });
    expect(describeError(new McpError(ErrorCode.InvalidParams, 'MCP error -32602: bad "key"'))).toEqual({ kind: 'server_error', reason: 'bad "key"' });
    expect(describeError(new Error('Not connected'))).toEqual({ kind: 'unreachable', reason: 'not connected' });
  });

  it('says which command could not be started', () => {
    const enoent = Object.assign(new Error('spawn npx-nope ENOENT'), { code: 'ENOENT', syscall: 'spawn npx-nope', path: 'npx-nope' });
    expect(describeError(enoent)).toEqual({ kind: 'unreachable', reason: 'the command npx-nope was not found; check "command" in mcp.json and PATH' });
  });
});
