/**
 * Retries a model's failed calls with backoff: a rate limit waits as long as the endpoint's Retry-After asks, an
 * outage or a dropped stream waits an exponential, jittered delay. Only failures that waiting can fix are retried
 * (ModelError 'rate_limited' and 'unavailable'); a wait that would end past the request's `retryDeadline`, or a
 * Retry-After longer than `maxRetryAfterMs`, gives up at once — the user is better served by a clear sentence now.
 */
import { sleep as sleepUnlessAborted } from '../core/abort';
import { isRetryableModelError, type ChatModel, type ChatRequest } from '../core/chat';

interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff delay; doubled per retry, with ±25 % jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After beyond this is not worth waiting for inside a chat turn. */
  maxRetryAfterMs: number;
}

const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

export interface RetryingOptions {
  policy?: Partial<RetryPolicy>;
  /** Injected in tests; resolves after `ms` or rejects when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

export function createRetryingChatModel<M extends ChatModel>(inner: M, options: RetryingOptions = {}): M {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const sleep = options.sleep ?? sleepUnlessAborted;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;

  const complete = async (request: ChatRequest) => {
    for (let attempt = 0; ; attempt++) {
      let streamed = false;
      const attemptRequest: ChatRequest = request.onTextDelta
        ? {
            ...request,
            onTextDelta: (delta) => {
              streamed = true;
              request.onTextDelta!(delta);
            },
          }
        : request;
      try {
        return await inner.complete(attemptRequest);
      } catch (error) {
        if (!isRetryableModelError(error) || attempt >= policy.maxRetries || request.signal?.aborted) throw error;
        if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxRetryAfterMs) throw error;
        const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * (0.75 + random() * 0.5);
        // The endpoint's own word wins over our guess; never retry sooner than it asked.
        const delayMs = Math.round(error.retryAfterMs ?? backoff);
        if (request.retryDeadline !== undefined && now() + delayMs >= request.retryDeadline) throw error;
        request.onRetry?.({ attempt: attempt + 1, delayMs, error, textAbandoned: streamed });
        await sleep(delayMs, request.signal);
      }
    }
  };
  return { ...inner, complete };
}
