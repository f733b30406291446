/**
 * When a file download is worth trying again, and how long to wait. Slack answers 429 with Retry-After when it
 * rate-limits and 5xx when it has a bad moment; both pass. Anything else will not change by waiting.
 */

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubled after each further failure. */
  baseDelayMs: number;
  /** Longest wait we accept. A Retry-After beyond it ends the retries: the person asking would rather know now. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 15_000 };

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * How long to wait before try number `attempt + 1` (attempt counts from 1), or undefined when we should stop.
 * Retry-After is honoured in both of its forms (seconds, or an HTTP date).
 */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfter: string | null, now = Date.now()): number | undefined {
  if (attempt >= policy.attempts) return undefined;
  const asked = parseRetryAfter(retryAfter, now);
  const delay = asked ?? policy.baseDelayMs * 2 ** (attempt - 1);
  return delay > policy.maxDelayMs ? undefined : delay;
}

export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
