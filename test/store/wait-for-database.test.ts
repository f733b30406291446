/**
 * Starting while PostgreSQL is away: wait for it (no crash loop under a supervisor), give up after a while with a
 * sentence that names the server but not the password, and fail at once on a misconfiguration.
 *
 * Needs TEST_DATABASE_URL; without it the suite is skipped with a note.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger';
import { openDatabaseWhenReachable } from '../../src/app/database/wait-for-database';
import { StartupError } from '../../src/app/startup-error';
import { createScratchPostgres } from '../support/databases';
import { startTcpProxy, type TcpProxy } from '../reliability/support/tcp-proxy';

const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) console.warn('[wait-for-database.test] skipped: set TEST_DATABASE_URL to run it against PostgreSQL');

describe.skipIf(!adminUrl)('opening PostgreSQL at start', () => {
  let scratch: { url: string; drop(): Promise<void> };
  let proxy: TcpProxy;
  let proxied: URL;
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(line) });

  beforeAll(async () => {
    scratch = await createScratchPostgres(adminUrl!);
    const direct = new URL(scratch.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    proxied = new URL(scratch.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    proxied.password = 'not-logged-7731';
  });
  afterAll(async () => {
    await proxy?.close();
    await scratch?.drop();
  });

  it('waits for a database that comes up after the process started', async () => {
    await proxy.down();
    setTimeout(() => void proxy.up(), 1_500);
    const handle = await openDatabaseWhenReachable({ driver: 'postgres', url: proxied.toString() }, logger, 30_000);
    await handle.ping();
    await handle.close();
    expect(logs.some((line) => line.includes('database not reachable yet; retrying'))).toBe(true);
  });

  it('gives up after the wait with a sentence naming the server, never the password', async () => {
    await proxy.down();
    const failure = await openDatabaseWhenReachable({ driver: 'postgres', url: proxied.toString() }, logger, 1_000).catch((error: unknown) => error);
    await proxy.up();
    expect(failure).toBeInstanceOf(StartupError);
    expect((failure as Error).message).toMatch(new RegExp(`^DATABASE_URL: PostgreSQL at 127\\.0\\.0\\.1:${proxy.port} could not be reached within 1 s \\(ECONNREFUSED`));
    expect((failure as Error).message + logs.join('\n')).not.toContain('not-logged-7731');
  });

  it('fails at once when the database does not exist: that is configuration, not an outage', async () => {
    const missing = new URL(scratch.url);
    missing.pathname = '/threadwise_no_such_database';
    const failure = await openDatabaseWhenReachable({ driver: 'postgres', url: missing.toString() }, logger, 60_000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StartupError);
    expect((failure as Error).message).toMatch(/^DATABASE_URL: database "threadwise_no_such_database" does not exist at .*; create it/);
  });

  it('gives up on a server that accepts and then goes silent instead of hanging the query (half-open connection)', async () => {
    await proxy.up();
    const handle = await openDatabaseWhenReachable({ driver: 'postgres', url: proxied.toString(), statementTimeoutMs: 1_000 }, logger, 10_000);
    try {
      await handle.ping();
      proxy.silence();
      const started = Date.now();
      const failure = await handle.ping().then(
        () => 'answered',
        (error: unknown) => error,
      );
      // Dropped after statement_timeout + 5 s of silence, not left to hang (Linux's own keepalive would take minutes).
      expect(failure).toBeInstanceOf(Error);
      expect(Date.now() - started).toBeLessThan(15_000);
      await proxy.up();
      // A new connection is made for the next query.
      await handle.ping();
    } finally {
      await proxy.up();
      await handle.close();
    }
  }, 60_000);
});
