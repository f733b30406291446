/**
 * What went wrong talking to an MCP server, as a short phrase a person (or the model) understands — "connection
 * refused", "credentials refused (HTTP 401)" — and whether it means the server is out of reach (an outage) or only
 * that this one request failed. fetch, the SDK and child processes each say these things their own way.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { causesOf, codeOf, messageOf } from '../core/errors';

type ErrorKind = 'unreachable' | 'timeout' | 'session_expired' | 'server_error';

export interface DescribedError {
  kind: ErrorKind;
  reason: string;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection broken',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection dropped',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_HEADERS_TIMEOUT: 'no answer (headers timeout)',
  UND_ERR_BODY_TIMEOUT: 'no answer (body timeout)',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed TLS certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
};

export function describeError(error: unknown, hadSession = false): DescribedError {
  // The SSE transport reports a refused POST as a plain Error with the status in its message.
  const ssePost = error instanceof Error ? /^Error POSTing to endpoint \(HTTP (\d+)\)/.exec(error.message) : null;
  if (error instanceof StreamableHTTPError || error instanceof SseError || ssePost) {
    const status = ssePost ? Number(ssePost[1]) : (error as StreamableHTTPError | SseError).code;
    const message = (error as Error).message;
    const http = `HTTP ${status}${responseBody(message)}`;
    if (status === 404 && hadSession && !(error instanceof SseError)) return { kind: 'session_expired', reason: 'session expired (HTTP 404)' };
    if (status === 401) return { kind: 'unreachable', reason: `credentials refused (${http}); check the headers in mcp.json` };
    if (status === 403) return { kind: 'unreachable', reason: `access forbidden (${http}); check the credentials in mcp.json` };
    if (status === 404) return { kind: 'unreachable', reason: `nothing at that address (${http}); check the url in mcp.json` };
    if (status !== undefined && status >= 500) return { kind: 'unreachable', reason: `server error (${http})` };
    if (status !== undefined && status > 0) return { kind: 'server_error', reason: `refused (${http})` };
    const network = networkReason(error);
    if (network) return { kind: 'unreachable', reason: network };
    return { kind: 'unreachable', reason: firstLine(message) };
  }
  // The SDK's Protocol and the SSE transport say this once their transport is gone.
  if (error instanceof Error && error.message === 'Not connected') return { kind: 'unreachable', reason: 'not connected' };
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return { kind: 'timeout', reason: 'no answer in time' };
    if (error.code === ErrorCode.ConnectionClosed) return { kind: 'unreachable', reason: 'the connection closed' };
    return { kind: 'server_error', reason: firstLine(error.message.replace(/^(MCP error -?\d+:\s*)+/, '')) };
  }
  const network = networkReason(error);
  if (network) return { kind: 'unreachable', reason: network };
  const code = codeOf(error);
  if (code === 'ENOENT' && (error as NodeJS.ErrnoException).syscall?.startsWith('spawn')) {
    return { kind: 'unreachable', reason: `the command ${(error as NodeJS.ErrnoException).path ?? ''} was not found; check "command" in mcp.json and PATH` };
  }
  if (code === 'EACCES' && (error as NodeJS.ErrnoException).syscall?.startsWith('spawn')) {
    return { kind: 'unreachable', reason: `the command ${(error as NodeJS.ErrnoException).path ?? ''} cannot be run (permission denied)` };
  }
  if (error instanceof Error && error.name === 'ZodError') return { kind: 'server_error', reason: 'the server answered with something that is not valid MCP' };
  return { kind: 'server_error', reason: firstLine(messageOf(error)) };
}

/** The SDK puts the response body after "endpoint: "; a short, one-line piece of it often says what is wrong. */
function responseBody(message: string): string {
  const body = /endpoint(?: \(HTTP \d+\))?: ([\s\S]*)$/.exec(message)?.[1]?.replace(/\s+/g, ' ').trim();
  if (!body || body === 'null') return '';
  return `: ${body.length > 160 ? `${body.slice(0, 159)}…` : body}`;
}

/** fetch() fails with "fetch failed" and the real reason in `cause` (an undici or system error). */
function networkReason(error: unknown): string | undefined {
  const chain = causesOf(error);
  const known = chain.slice(0, 4).map(codeOf).find((code) => code !== undefined && Object.hasOwn(NETWORK_CODES, code));
  if (known) return NETWORK_CODES[known];
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) {
    const cause = chain[1];
    return cause instanceof Error && cause.message ? `connection failed (${firstLine(cause.message)})` : 'connection failed';
  }
  return undefined;
}

export function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line || 'unknown error';
}
