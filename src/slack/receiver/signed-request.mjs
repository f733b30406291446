/**
 * What the receiver's thread decides about a request from Slack, before any listener runs: is it really from
 * Slack, what does its body say, and can it be answered at once. Pure functions, plain JavaScript so that the
 * receiver's thread loads them without tsx (see receiver-thread.mjs); types in signed-request.d.mts.
 *
 * Slack signs `v0:<timestamp>:<raw body>` with the app's signing secret (HMAC-SHA256) and sends the result in
 * x-slack-signature. A timestamp more than five minutes off is refused too, so a captured request cannot be
 * replayed later (https://api.slack.com/authentication/verifying-requests-from-slack).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse as parseQueryString } from 'node:querystring';

export const REPLAY_WINDOW_SECONDS = 5 * 60;

/**
 * @param {{ signingSecret: string, rawBody: string, timestamp: string | undefined, signature: string | undefined, nowSeconds: number }} request
 * @returns {{ ok: true } | { ok: false, reason: string }}
 */
export function verifySlackSignature({ signingSecret, rawBody, timestamp, signature, nowSeconds }) {
  if (!timestamp || !/^\d+$/.test(timestamp)) return { ok: false, reason: 'no x-slack-request-timestamp header' };
  if (!signature) return { ok: false, reason: 'no x-slack-signature header' };
  if (Math.abs(nowSeconds - Number(timestamp)) > REPLAY_WINDOW_SECONDS) {
    return { ok: false, reason: `stale timestamp (${Math.round(nowSeconds - Number(timestamp))} s off; the window is ${REPLAY_WINDOW_SECONDS} s)` };
  }
  const expected = Buffer.from(`v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`);
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature mismatch' };
  return { ok: true };
}

/**
 * The body as Bolt reads it: JSON for the Events API; a form for slash commands; a form whose `payload` field is
 * JSON for interactivity (buttons, shortcuts, views). Throws on a body that is none of these.
 *
 * @param {string} rawBody
 * @param {string | undefined} contentType
 * @returns {Record<string, unknown>}
 */
export function parseSlackBody(rawBody, contentType) {
  if (contentType?.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded') {
    const form = parseQueryString(rawBody);
    if (typeof form.payload !== 'string') return { ...form };
    const payload = JSON.parse(form.payload);
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new Error('the payload field is not a JSON object');
    return payload;
  }
  const body = JSON.parse(rawBody);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('the JSON body is not an object');
  return body;
}

/**
 * How the thread answers a verified body without waiting for the app:
 * - `ssl_check` and `url_verification` are answered here and go no further;
 * - Events API deliveries get an empty 200 at once (Bolt acknowledges them before any listener runs anyway; no
 *   listener can add to the response), then go to the app;
 * - `app_rate_limited` is answered and reported, not processed;
 * - everything else (slash commands, interactivity, `function_executed`) is answered by the app's ack(), whose
 *   response may carry a body.
 *
 * @param {Record<string, unknown>} body
 * @returns {{ kind: 'ssl_check' } | { kind: 'url_verification', challenge: unknown } | { kind: 'rate_limited' } | { kind: 'event' } | { kind: 'needs_app' }}
 */
export function classifySlackBody(body) {
  if (body.ssl_check === '1') return { kind: 'ssl_check' };
  if (body.type === 'url_verification') return { kind: 'url_verification', challenge: body.challenge };
  if (body.type === 'app_rate_limited') return { kind: 'rate_limited' };
  const event = /** @type {{ type?: unknown } | undefined} */ (body.event);
  if (body.type === 'event_callback' && event?.type !== 'function_executed') return { kind: 'event' };
  return { kind: 'needs_app' };
}

/**
 * Slack's retry headers, as Bolt passes them on (retryNum, retryReason).
 *
 * @param {import('node:http').IncomingHttpHeaders} headers
 * @returns {{ retryNum?: number, retryReason?: string }}
 */
export function retryOf(headers) {
  const num = Number.parseInt(String(headers['x-slack-retry-num'] ?? ''), 10);
  const reason = headers['x-slack-retry-reason'];
  return {
    ...(Number.isInteger(num) ? { retryNum: num } : {}),
    ...(typeof reason === 'string' ? { retryReason: reason } : {}),
  };
}
