/**
 * The table engine on generated files: exact aggregates over a 150,000-row CSV, every format, sheet names with
 * spaces, errors that list the columns, limits on time and rows, and the cache by content hash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableEngine, type TableEngine } from '../../src/tables/table-engine';
import { TableError } from '../../src/tables/table-errors';
import { buildSalesCsv, jsonArrayBytes, parquetBytes, REGIONS, source, tsvBytes, workbookBytes, type SalesCsv } from './support/table-fixtures';

let engine: TableEngine;
let sales: SalesCsv;
let salesKey: string;

beforeAll(async () => {
  engine = createTableEngine();
  sales = buildSalesCsv();
  const file = source('sales.csv', 'csv', sales.bytes);
  salesKey = file.key;
  await engine.load(file);
});
afterAll(() => engine?.close());

async function failure(promise: Promise<unknown>): Promise<TableError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TableError);
  return error as TableError;
}

describe('a 150,000-row CSV', () => {
  it('is described with its columns, types and row count', () => {
    const file = engine.describe(salesKey);
    expect(file.tables).toEqual([
      {
        name: 'data',
        rowCount: 150_000,
        columns: [
          { name: 'region', type: 'VARCHAR' },
          { name: 'product', type: 'VARCHAR' },
          { name: 'units', type: 'BIGINT' },
          { name: 'day', type: 'DATE' },
        ],
      },
    ]);
  });

  it('answers exact counts and sums per region, as numbers', async () => {
    const result = await engine.query(salesKey, 'SELECT region, count(*) AS n, sum(units) AS units FROM data GROUP BY region ORDER BY region');
    const expected = [...REGIONS].sort().map((region) => [region, sales.byRegion.get(region)!.count, sales.byRegion.get(region)!.units]);
    expect(result.rows).toEqual(expected);
    expect(result.columns.map((c) => c.name)).toEqual(['region', 'n', 'units']);
    expect(result).toMatchObject({ totalRows: 5, totalRowsExact: true, truncated: false });
    expect(result.limitNote).toBeUndefined();
  });

  it('answers a top-N exactly', async () => {
    const result = await engine.query(salesKey, 'SELECT product, sum(units) AS units FROM data GROUP BY product ORDER BY units DESC, product LIMIT 5');
    expect(result.rows).toEqual(sales.topProducts.map((p) => [p.product, p.units]));
  });

  it('keeps BigInt-sized values exact as text and dates as ISO text', async () => {
    const result = await engine.query(salesKey, "SELECT 12345678901234567890::HUGEINT AS big, max(day) AS last_day, 1.25::DECIMAL(10,2) AS price FROM data");
    expect(result.rows).toEqual([['12345678901234567890', '2024-12-28', 1.25]]);
  });

  it('answers a bad column with DuckDB\'s sentence and the columns that exist', async () => {
    const error = await failure(engine.query(salesKey, 'SELECT regoin, sum(units) FROM data GROUP BY regoin'));
    expect(error.code).toBe('query_failed');
    expect(error.message).toContain('regoin');
    expect(error.message).toContain('Tables and columns:');
    expect(error.message).toContain('- data: 150,000 rows; region VARCHAR, product VARCHAR, units BIGINT, day DATE');
  });

  it('caps a 1,000,000-row result, counts the total and names the limit', async () => {
    const result = await engine.query(salesKey, 'SELECT range AS n FROM range(1000000)');
    expect(result.rows).toHaveLength(10_000);
    expect(result.rows[9_999]).toEqual([9_999]);
    expect(result).toMatchObject({ totalRows: 1_000_000, totalRowsExact: true, truncated: true });
    expect(result.limitNote).toBe(
      'The query returned 1,000,000 rows; only the first 10,000 are kept (the limit of 10,000 rows per result). Aggregate (GROUP BY), filter (WHERE) or add LIMIT to get a smaller result.',
    );
  });

  it('caps by characters when rows are wide', async () => {
    const result = await engine.query(salesKey, "SELECT repeat('x', 1000) AS wide FROM range(100)", { limits: { maxChars: 10_000 } });
    expect(result.rows.length).toBeLessThan(10);
    expect(result.totalRows).toBe(100);
    expect(result.limitNote).toContain('the limit of 10,000 characters per result');
  });

  it('stops a query that runs past its time limit with a sentence, and answers the next query', async () => {
    // A trillion-row cross join: no machine finishes it in 300 ms.
    const error = await failure(engine.query(salesKey, 'SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b', { limits: { timeoutMs: 300 } }));
    expect(error.code).toBe('query_timeout');
    expect(error.message).toMatch(/^The query was stopped after 0\.3 s, the time limit per query\./);
    const next = await engine.query(salesKey, 'SELECT count(*) FROM data');
    expect(next.rows).toEqual([[150_000]]);
  });

  it('stops a query when the caller\'s signal aborts', async () => {
    const controller = new AbortController();
    const running = engine.query(salesKey, 'SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b', { signal: controller.signal });
    controller.abort();
    expect((await failure(running)).code).toBe('query_cancelled');
    expect((await engine.query(salesKey, 'SELECT 1 AS one')).rows).toEqual([[1]]);
  });
});

describe('every format', () => {
  it('reads a TSV', async () => {
    const file = await engine.load(source('scores.tsv', 'tsv', tsvBytes()));
    const result = await engine.query(file.key, 'SELECT team, sum(score) AS total, count(*) AS members FROM data GROUP BY team ORDER BY team');
    expect(result.rows).toEqual([
      ['blue', 20, 3],
      ['red', 17, 2],
    ]);
  });

  it('reads a JSON array of objects', async () => {
    const file = await engine.load(source('weather.json', 'json', jsonArrayBytes()));
    expect(file.tables[0]!.columns.map((c) => c.name)).toEqual(['city', 'temp', 'sunny']);
    const result = await engine.query(file.key, 'SELECT count(*) FILTER (WHERE sunny) AS sunny_days, max(temp) AS warmest FROM data');
    expect(result.rows).toEqual([[2, 24]]);
  });

  it('reads a Parquet file written by DuckDB', async () => {
    const file = await engine.load(source('numbers.parquet', 'parquet', await parquetBytes()));
    expect(file.tables[0]!.rowCount).toBe(1000);
    const result = await engine.query(file.key, 'SELECT bucket, sum(value) AS total FROM data WHERE bucket IN (0, 9) GROUP BY bucket ORDER BY bucket');
    // bucket b holds ids b, b+10, …, b+990: sum(2·id) = 2·(100·b + 10·(0+…+99)) = 200·b + 99,000
    expect(result.rows).toEqual([
      [0, 99_000],
      [9, 100_800],
    ]);
  });

  it('reads a workbook: each sheet by its name (spaces included), data as the first', async () => {
    const file = await engine.load(source('q3.xlsx', 'xlsx', await workbookBytes()));
    expect(file.tables.map((t) => [t.name, t.rowCount, t.aliasOf])).toEqual([
      ['data', 4, 'Q3 Sales'],
      ['Q3 Sales', 4, undefined],
      ['Targets', 2, undefined],
    ]);
    expect(file.tables[1]!.columns).toEqual([
      { name: 'Region', type: 'VARCHAR' },
      { name: 'Month', type: 'DATE' },
      { name: 'Revenue', type: 'DOUBLE' },
    ]);
    const joined = await engine.query(
      file.key,
      'SELECT s."Region", sum(s."Revenue") AS revenue, t."Target" FROM "Q3 Sales" s JOIN Targets t USING ("Region") GROUP BY ALL ORDER BY 1',
    );
    expect(joined.rows).toEqual([
      ['north', 2700, 2500],
      ['south', 3000.5, 3500],
    ]);
    expect((await engine.query(file.key, 'SELECT count(*) FROM data')).rows).toEqual([[4]]);
  });

  it('says plainly when a file is not what its kind says', async () => {
    const error = await failure(engine.load(source('broken.parquet', 'parquet', new TextEncoder().encode('not parquet at all'))));
    expect(error.code).toBe('table_load_failed');
    expect(error.message).toMatch(/^broken\.parquet could not be read as Parquet: /);
  });
});

describe('the cache by content hash', () => {
  it('loads the same bytes once and drops the least recently used past its bound', async () => {
    const small = createTableEngine({ maxLoadedFiles: 2 });
    try {
      const a = source('a.tsv', 'tsv', tsvBytes());
      const b = source('b.json', 'json', jsonArrayBytes());
      const c = source('c.csv', 'csv', new TextEncoder().encode('x\n1\n2\n'));
      const first = await small.load(a);
      expect(await small.load({ ...a, name: 'same-bytes-again.tsv' })).toBe(first);
      await small.load(b);
      await small.load(c);
      expect([a, b, c].map((s) => small.isLoaded(s.key))).toEqual([false, true, true]);
      expect((await small.usage()).loadedKeys.sort()).toEqual([b.key, c.key].sort());
      expect((await failure(small.query(a.key, 'SELECT 1'))).code).toBe('table_not_loaded');
    } finally {
      await small.close();
    }
  });
});
