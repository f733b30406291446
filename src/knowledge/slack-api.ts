/**
 * The part of Slack's Web API the knowledge tier uses, as a parameter: a @slack/web-api WebClient fits it as it is
 * (tests hand it one pointed at the fake Slack). Rate limits are honoured here with the caller's Clock, so a
 * backfill waits out a 429's Retry-After instead of hammering Slack, and tests move time by hand.
 */
import type { Clock } from '../core/clock';

/** A message as conversations.history / conversations.replies return it (only the fields read here). */
export interface ApiMessage {
  ts?: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  subtype?: string;
  team?: string;
  edited?: { ts?: string };
  reply_count?: number;
  latest_reply?: string;
}

interface ApiMessagesPage {
  messages?: ApiMessage[];
  has_more?: boolean;
  response_metadata?: { next_cursor?: string };
}

interface ApiChannel {
  id?: string;
  name?: string;
  is_private?: boolean;
  is_im?: boolean;
  is_mpim?: boolean;
  is_archived?: boolean;
  context_team_id?: string;
}

export interface KnowledgeSlackApi {
  conversations: {
    history(args: { channel: string; oldest?: string; limit?: number; cursor?: string }): Promise<ApiMessagesPage>;
    replies(args: { channel: string; ts: string; oldest?: string; limit?: number; cursor?: string }): Promise<ApiMessagesPage>;
    members(args: { channel: string; limit?: number; cursor?: string }): Promise<{ members?: string[]; response_metadata?: { next_cursor?: string } }>;
    info(args: { channel: string }): Promise<{ channel?: ApiChannel }>;
  };
  users: {
    info(args: { user: string }): Promise<{ user?: { name?: string; real_name?: string; profile?: { display_name?: string; real_name?: string } } }>;
  };
  chat: {
    getPermalink(args: { channel: string; message_ts: string }): Promise<{ permalink?: string }>;
  };
}

/** Waits longer than this are not waited: the call fails and the caller tries again later. */
const MAX_WAIT_MS = 5 * 60_000;

/**
 * Runs a Web API call, waiting out rate limits: on a 429 (a WebClient built with rejectRateLimitedCalls: true
 * throws `slack_webapi_rate_limited_error` with `retryAfter` in seconds) it waits that long on `clock` and calls
 * again, at most `maxWaits` times. Any other failure is thrown at once.
 */
export async function callWithRateLimit<T>(call: () => Promise<T>, clock: Clock, options: { maxWaits?: number; signal?: AbortSignal } = {}): Promise<T> {
  const maxWaits = options.maxWaits ?? 5;
  for (let waits = 0; ; waits += 1) {
    options.signal?.throwIfAborted();
    try {
      return await call();
    } catch (error) {
      const seconds = retryAfterSeconds(error);
      if (seconds === undefined || waits >= maxWaits || seconds * 1000 > MAX_WAIT_MS) throw error;
      await wait(clock, Math.max(1, seconds) * 1000, options.signal);
    }
  }
}

/** The Retry-After of a rate-limited call, in seconds; undefined for any other error. */
function retryAfterSeconds(error: unknown): number | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const { code, retryAfter, status } = error as { code?: unknown; retryAfter?: unknown; status?: unknown };
  if (code !== 'slack_webapi_rate_limited_error' && status !== 429) return undefined;
  return typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : 1;
}

function wait(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancel = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
