/**
 * On the embedded database a query blocks the event loop; the app's handle yields a turn before each one, so an
 * acknowledgement waiting for I/O goes out between two queries instead of after a whole chain of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, type DatabaseHandle } from '../../src/store/db';
import { yieldBetweenQueries } from '../../src/store/yield-between-queries';

describe('yieldBetweenQueries on PGlite', () => {
  let plain: DatabaseHandle;
  let yielding: DatabaseHandle;
  beforeAll(async () => {
    [plain, yielding] = await Promise.all([openDatabase({ driver: 'pglite' }), openDatabase({ driver: 'pglite' })]);
    yieldBetweenQueries(yielding);
  });
  afterAll(async () => {
    await plain?.close();
    await yielding?.close();
  });

  /** What ran first: two chained queries, or a callback queued for the event loop's next turn. */
  async function order(handle: DatabaseHandle): Promise<string[]> {
    const seen: string[] = [];
    setImmediate(() => seen.push('event loop'));
    await handle.db.execute(sql`select 1`);
    seen.push('query 1');
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`select 2`);
    });
    seen.push('query 2');
    await new Promise((resolve) => setImmediate(resolve)); // by now the queued callback has run either way
    return seen;
  }

  it('without it, a chain of queries runs before anything else gets a turn', async () => {
    expect(await order(plain)).toEqual(['query 1', 'query 2', 'event loop']);
  });

  it('with it, the event loop gets a turn before the first query', async () => {
    expect(await order(yielding)).toEqual(['event loop', 'query 1', 'query 2']);
  });

  it('leaves queries and transactions working as before', async () => {
    const result = await yielding.db.transaction(async (tx) => tx.execute(sql`select 40 + 2 as answer`));
    expect(JSON.stringify(result)).toContain('42');
  });
});
