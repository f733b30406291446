import { openDatabase, type SayProgress } from './open-database';
import type { DatabaseHandle, DatabaseLocation } from '../../store/database';
import type { Logger } from '../../logging/logger';
import { StartupError } from '../startup-error';
import { DataDirInUseError } from './data-dir-lock';
import { causesOf, codeOf, messageOf } from '../../core/errors';

/**
 * Errors that mean "not reachable (yet)": a restarting or still-starting PostgreSQL, a host name that does not
 * resolve yet (a container starting beside it), a server that accepts and never answers. One policy for all of them:
 * retried with backoff for DATABASE_WAIT_SECONDS, then one sentence and exit.
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P03', // cannot_connect_now: the server is starting up or shutting down
  '53300', // too_many_connections
]);

const WHAT_IT_MEANS: Record<string, string> = {
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved',
  ECONNREFUSED: 'nothing listens on that port',
  ETIMEDOUT: 'the connection timed out',
  CONNECT_TIMEOUT: 'the server accepted the connection but never answered',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  '57P03': 'the server is starting up or shutting down',
  '53300': 'the server has too many connections',
};

function isDatabaseUnreachable(error: unknown): boolean {
  return causesOf(error).some((e: any) => UNREACHABLE.has(e.code) || UNREACHABLE.has(e.errno));
}

/**
 * Opens the database, waiting up to `waitMs` for a PostgreSQL that is not reachable. Without the wait, a process
 * started while the database restarts would exit, be restarted by its supervisor, exit again: a crash loop. A
 * misconfiguration (bad password, missing database) fails at once. Every failure is a StartupError whose sentence
 * names the variable; the URL is never echoed (it may carry a password), only host and port.
 */
export async function openDatabaseWhenReachable(location: DatabaseLocation, logger: Logger, waitMs = 60_000, say?: SayProgress): Promise<DatabaseHandle> {
  const deadline = Date.now() + waitMs;
  // A server that accepts and never answers costs one connect timeout per attempt: keep it within the wait.
  if (location.driver === 'postgres' && location.connectTimeoutSeconds === undefined) {
    location = { ...location, connectTimeoutSeconds: Math.min(10, Math.max(1, Math.ceil(waitMs / 1000))) };
  }
  if (location.driver === 'postgres') say?.(`connecting to PostgreSQL at ${describeServer(location.url)}…`);
  for (let attempt = 1; ; attempt++) {
    try {
      return await openDatabase(location, say);
    } catch (error) {
      if (location.driver !== 'postgres') {
        // Its own sentence names DATA_DIR and the fix already.
        if (error instanceof DataDirInUseError) throw new StartupError(error.message);
        throw new StartupError(
          `DATA_DIR: could not open the embedded database in ${location.dataDir ?? 'memory'} (${redactedMessageOf(error)}); check that the folder is writable and that no other threadwise process uses it, or set DATABASE_URL`,
        );
      }
      const where = describeServer(location.url);
      if (!isDatabaseUnreachable(error)) throw misconfigured(error, where);
      const code = firstCodeOf(error);
      if (Date.now() >= deadline) {
        const meaning = WHAT_IT_MEANS[code] ? `${code}: ${WHAT_IT_MEANS[code]}` : code;
        throw new StartupError(
          `DATABASE_URL: PostgreSQL at ${where} could not be reached within ${Math.round(waitMs / 1000)} s (${meaning}); check the host and port in DATABASE_URL and that the server is running (DATABASE_WAIT_SECONDS sets the wait)`,
        );
      }
      const delay = Math.min(5_000, 250 * 2 ** (attempt - 1), Math.max(0, deadline - Date.now()));
      logger.warn('database not reachable yet; retrying', { server: where, attempt, retryInMs: delay, code });
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** The server answered and said no: waiting will not help. */
function misconfigured(error: unknown, where: string): StartupError {
  const code = firstCodeOf(error);
  if (code === '28P01' || code === '28000') {
    return new StartupError(`DATABASE_URL: PostgreSQL at ${where} refused the login (${code}); check the user and password in DATABASE_URL`);
  }
  if (code === '3D000') {
    return new StartupError(`DATABASE_URL: ${redactedMessageOf(error)} at ${where}; create it (createdb) or fix the database name in DATABASE_URL`);
  }
  return new StartupError(`DATABASE_URL: could not open PostgreSQL at ${where} (${code}: ${redactedMessageOf(error)}); check DATABASE_URL`);
}

function describeServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}`;
  } catch {
    return 'the configured address';
  }
}

/** The first code down the cause chain (drivers wrap the system error that says why), for the sentence. */
function firstCodeOf(error: unknown): string {
  return causesOf(error).map(codeOf).find((code) => code !== undefined) ?? 'unknown error';
}

/** The error's message, without anything that looks like a URL with credentials. */
function redactedMessageOf(error: unknown): string {
  const text = messageOf(error);
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@').split('\n')[0]!;
}
