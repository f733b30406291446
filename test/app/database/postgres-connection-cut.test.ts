/**
 * A PostgreSQL connection cut as the pool opens it: the query on it fails to its caller, and nothing escapes as an
 * unhandled rejection (which would end the process). postgres.js's own array-type query, sent first on every new
 * connection by default, dropped its promise (porsager/postgres#1192); the pool opens without it, and array columns
 * are read from their text form (test/search/embeddings.test.ts reads them back on PostgreSQL).
 *
 * Needs TEST_DATABASE_URL; without it the suite is skipped with a note.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchPostgres } from '../../support/databases';
import { openDatabase } from '../../../src/app/database/open-database';
import type { DatabaseHandle } from '../../../src/store/database';
import { startTcpProxy, type TcpProxy } from '../../reliability/support/tcp-proxy';

const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) console.warn('[postgres-connection-cut.test] skipped: set TEST_DATABASE_URL to run it');

describe.skipIf(!adminUrl)('a PostgreSQL connection cut while it opens', () => {
  let scratch: { url: string; drop(): Promise<void> };
  let proxy: TcpProxy;
  let database: DatabaseHandle;
  const escaped: unknown[] = [];
  const collect = (reason: unknown) => escaped.push(reason);

  beforeAll(async () => {
    scratch = await createScratchPostgres(adminUrl!);
    const direct = new URL(scratch.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(scratch.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    database = await openDatabase({ driver: 'postgres', url: proxied.toString(), maxConnections: 2 });
    process.on('unhandledRejection', collect);
  });
  afterAll(async () => {
    process.off('unhandledRejection', collect);
    await database?.close().catch(() => {});
    await proxy?.close();
    await scratch?.drop();
  });

  /** Lets every callback the cut scheduled run: a rejection nobody handles is reported after the microtasks. */
  const settle = async () => {
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };

  it('fails the query to its caller, leaves no unhandled rejection, and works again on the next connection', async () => {
    await proxy.down(); // the pool's open connections go; the next query opens a new one
    await proxy.up();
    proxy.downAtNextFirstQuery();
    const outcome = await database.ping().then(() => 'answered', (error: Error) => `failed: ${error.message}`);
    await settle();
    expect(escaped).toEqual([]);
    expect(outcome).toMatch(/^failed: .*CONNECTION_CLOSED/);
    await proxy.up();
    await expect(database.ping()).resolves.toBeUndefined();
  });

});
