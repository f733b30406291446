/**
 * A PostgreSQL connection cut as the pool opens it: the query on it fails to its caller, and nothing escapes as an
 * unhandled rejection (which would end the process). postgres.js's own array-type query, sent first on every new
 * connection by default, dropped its promise (porsager/postgres#1192); the pool opens without it, and array columns
 * are read from their text form (test/search/embeddings.test.ts reads them back on PostgreSQL).
 *
 * Needs TEST_DATABASE_URL; without it the suite is skipped with a note.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProxiedScratchPostgres, type ProxiedPostgres } from '../../reliability/support/proxied-postgres';

const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) console.warn('[postgres-connection-cut.test] skipped: set TEST_DATABASE_URL to run it');

describe.skipIf(!adminUrl)('a PostgreSQL connection cut while it opens', () => {
  let postgres: ProxiedPostgres;
  const escaped: unknown[] = [];
  const collect = (reason: unknown) => escaped.push(reason);

  beforeAll(async () => {
    postgres = await openProxiedScratchPostgres(adminUrl!, 2);
    process.on('unhandledRejection', collect);
  });
  afterAll(async () => {
    process.off('unhandledRejection', collect);
    await postgres?.close();
  });

  /** Lets every callback the cut scheduled run: a rejection nobody handles is reported after the microtasks. */
  const settle = async () => {
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };

  it('fails the query to its caller, leaves no unhandled rejection, and works again on the next connection', async () => {
    const { database, proxy } = postgres;
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
