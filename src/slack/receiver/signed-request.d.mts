import type { IncomingHttpHeaders } from 'node:http';

export declare const REPLAY_WINDOW_SECONDS: number;

export declare function verifySlackSignature(request: {
  signingSecret: string;
  rawBody: string;
  timestamp: string | undefined;
  signature: string | undefined;
  nowSeconds: number;
}): { ok: true } | { ok: false; reason: string };

export declare function parseSlackBody(rawBody: string, contentType: string | undefined): Record<string, unknown>;

export type SlackBodyKind =
  | { kind: 'ssl_check' }
  | { kind: 'url_verification'; challenge: unknown }
  | { kind: 'rate_limited' }
  | { kind: 'event' }
  | { kind: 'needs_app' };

export declare function classifySlackBody(body: Record<string, unknown>): SlackBodyKind;

export declare function retryOf(headers: IncomingHttpHeaders): { retryNum?: number; retryReason?: string };
