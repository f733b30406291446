/**
 * The embedded database runs on a thread of its own. Seen from the app it is the same PGlite behind drizzle:
 * same results, PostgreSQL's errors with their codes, transactions that commit, roll back and nest, and that
 * hold other queries back while open. What changes is that a long statement no longer stops the event loop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/app/database/open-database';
import { rowsOf, type DatabaseHandle } from '../../src/store/database';

describe('the embedded database on its own thread', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await openDatabase({ driver: 'pglite' });
    await handle.db.execute(sql`create table notes (id serial primary key, body text not null)`);
  });
  afterAll(() => handle?.close());

  const count = async () => rowsOf<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from notes`))[0]!.n;

  it('lets the event loop turn while a long statement runs', async () => {
    let turns = 0;
    let running = true;
    const spin = () => {
      turns += 1;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    await handle.db.execute(sql`select count(*) from generate_series(1, 3000000)`);
    running = false;
    // In-process, PGlite would have held the loop for the whole statement: a turn or two at most.
    expect(turns).toBeGreaterThan(20);
  });

  it('returns rows as drizzle expects them: timestamps as PostgreSQL’s text, JSON parsed', async () => {
    const [row] = rowsOf<{ at: unknown; doc: unknown }>(
      await handle.db.execute(sql`select timestamptz '2026-11-21 10:00:00+00' as at, '{"a":[1,2]}'::jsonb as doc`),
    );
    expect(row).toEqual({ at: '2026-11-21 10:00:00+00', doc: { a: [1, 2] } });
  });

  it('reports PostgreSQL’s error, code included, through drizzle', async () => {
    const failure = await handle.db.execute(sql`select 1 / 0`).catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/Failed query: select 1 \/ 0/);
    expect((failure as Error & { cause: { code: string; message: string } }).cause).toMatchObject({ code: '22012', message: 'division by zero' });
  });

  it('commits a transaction, and rolls one back when its callback throws', async () => {
    const before = await count();
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into notes (body) values ('kept')`);
    });
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into notes (body) values ('lost')`);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await count()).toBe(before + 1);
  });

  it('rolls back a nested transaction alone', async () => {
    const before = await count();
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into notes (body) values ('outer')`);
      await tx.transaction(async (inner) => {
        await inner.execute(sql`insert into notes (body) values ('inner')`);
        inner.rollback();
      }).catch(() => {});
    });
    const bodies = rowsOf<{ body: string }>(await handle.db.execute(sql`select body from notes order by id desc limit 2`));
    expect(await count()).toBe(before + 1);
    expect(bodies[0]!.body).toBe('outer');
  });

  it('holds other queries back while a transaction is open, as PGlite does in-process', async () => {
    const before = await count();
    const signal = () => {
      let done!: () => void;
      return { promise: new Promise<void>((resolve) => (done = resolve)), done: () => done() };
    };
    const [inserted, outsideAsked, probed, open] = [signal(), signal(), signal(), signal()];
    const commit = open.done;
    const transaction = handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into notes (body) values ('in flight')`);
      inserted.done();
      await outsideAsked.promise;
      // A round trip sent after the outside query: had that one not been held back, it would be answered first.
      await tx.execute(sql`select 1`);
      probed.done();
      await open.promise;
    });
    await inserted.promise; // the transaction has begun and inserted
    let seen: number | undefined;
    const outside = count().then((n) => (seen = n));
    outsideAsked.done();
    await probed.promise;
    expect(seen).toBeUndefined();
    commit();
    await transaction;
    await outside;
    expect(seen).toBe(before + 1);
  });

  it('says so when used after it was closed', async () => {
    const other = await openDatabase({ driver: 'pglite' });
    await other.close();
    const failure = await other.db.execute(sql`select 1`).catch((error: unknown) => error);
    expect((failure as Error).cause).toMatchObject({ message: 'The embedded database is closed.' });
  });
});
