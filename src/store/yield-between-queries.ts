import type { DatabaseHandle } from './db';

/**
 * PGlite runs each query synchronously on the main thread, and its promises resolve as microtasks: a chain of
 * awaited queries (an intake transaction, a claim, a run's bookkeeping) never gives the event loop a turn, so an
 * incoming Slack request waits for every chain queued before it. A burst of 50 mentions then waits seconds for its
 * acknowledgements (bench: load.ack_p99_ms). Yielding once before each query or transaction lets pending I/O —
 * acknowledgements first of all — run in between. PostgreSQL through postgres.js does its I/O asynchronously and
 * needs none of this.
 */
export function yieldBetweenQueries(handle: DatabaseHandle): void {
  if (handle.driver !== 'pglite') return;
  const client = (handle.db as unknown as { $client?: Record<string, unknown> }).$client;
  if (!client) return;
  for (const method of ['query', 'exec', 'transaction']) {
    const original = client[method];
    if (typeof original !== 'function') continue;
    // PGlite's transaction() runs BEGIN/COMMIT through private methods, so wrapping the public ones cannot deadlock.
    client[method] = async (...args: unknown[]) => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      return (original as (...a: unknown[]) => unknown).apply(client, args);
    };
  }
}
