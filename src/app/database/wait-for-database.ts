import { openDatabase } from './open-database';
import type { DatabaseHandle, DatabaseLocation } from '../../store/database';
import type { Logger } from '../../logging/logger';

/** Errors that mean "not reachable yet" (a restarting or still-starting PostgreSQL), not "misconfigured". */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P03', // cannot_connect_now: the server is starting up or shutting down
  '53300', // too_many_connections
]);

export function isDatabaseUnreachable(error: unknown): boolean {
  for (let e: any = error; e; e = e.cause) if (UNREACHABLE.has(e.code) || UNREACHABLE.has(e.errno)) return true;
  return false;
}

/**
 * Opens the database, waiting up to `waitMs` for a PostgreSQL that is not reachable yet. Without this, a process
 * started while the database restarts would exit, be restarted by its supervisor, exit again: a crash loop. A
 * misconfiguration (bad password, missing database) still fails at once. The error names host and port, never the
 * URL, which may carry a password.
 */
export async function openDatabaseWhenReachable(location: DatabaseLocation, logger: Logger, waitMs = 60_000): Promise<DatabaseHandle> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openDatabase(location);
    } catch (error) {
      if (location.driver !== 'postgres' || !isDatabaseUnreachable(error)) throw error;
      const where = describeServer(location.url);
      if (Date.now() >= deadline) {
        throw new DatabaseUnreachableError(
          `PostgreSQL at ${where} did not answer for ${Math.round(waitMs / 1000)} s (${codeOf(error)}). Check DATABASE_URL and that the server is running.`,
          { cause: error },
        );
      }
      const delay = Math.min(5_000, 250 * 2 ** (attempt - 1), Math.max(0, deadline - Date.now()));
      logger.warn('database not reachable yet; retrying', { server: where, attempt, retryInMs: delay, code: codeOf(error) });
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

export class DatabaseUnreachableError extends Error {
  override readonly name = 'DatabaseUnreachableError';
}

function describeServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}`;
  } catch {
    return 'the configured address';
  }
}

function codeOf(error: unknown): string {
  for (let e: any = error; e; e = e.cause) if (typeof e.code === 'string') return e.code;
  return 'unknown error';
}
