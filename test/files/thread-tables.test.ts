/**
 * A thread's tables over its files (files/thread-tables.ts, files/result-files.ts): the real DuckDB engine reads a
 * thread file's bytes through the thread's file access, never by a path; query results become files of the thread
 * ("F1.q1", stored as documents by content hash) that the text tools read, that a later run gets back exactly, and
 * that go with retention and with their source file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileReadError, UnknownFileError, type ExtractedDocument } from '../../src/core/thread-file';
import { listThreadFiles } from '../../src/files/registry';
import { createThreadTables } from '../../src/files/thread-tables';
import { forgetSlackFile, sweepExpiredContent } from '../../src/store/retention';
import { createTableEngine, type TableEngine } from '../../src/tables/table-engine';
import { testDatabases } from '../support/databases';
import { useFileTestbed } from '../support/file-testbed';
import { buildSalesCsv, REGIONS } from '../tables/support/table-fixtures';

const QUERY = 'SELECT region, count(*) AS orders, sum(units) AS units, avg(units) > 40 AS busy FROM data GROUP BY region ORDER BY region';

const textExtractor = {
  async extract({ bytes }: { bytes: Uint8Array }): Promise<ExtractedDocument> {
    return { text: Buffer.from(bytes).toString('utf8'), outline: [], segments: [], notes: [] };
  },
};

let engine: TableEngine;
beforeAll(() => {
  engine = createTableEngine({ maxLoadedFiles: 2 });
});
afterAll(() => engine?.close());

describe.each(testDatabases())('a thread\'s tables on $label', (database) => {
  const bed = useFileTestbed(database);
  const sales = buildSalesCsv(2_000);

  const thread = async () => {
    const csv = bed.slack.addFile({ name: 'sales.csv', mimetype: 'text/csv', content: Buffer.from(sales.bytes) });
    const notes = bed.slack.addFile({ name: 'notes.txt', mimetype: 'text/plain', content: 'not a table' });
    const under = await bed.threadWith([csv, notes], { extractor: textExtractor });
    const tablesOf = (access = under.access) => createThreadTables({ db: bed.handle.db, threadId: under.threadId, engine, access });
    return { ...under, csv, tables: tablesOf(), tablesOf };
  };

  it('queries a thread file by id and keeps the result as a file of the thread that the text tools read', async () => {
    const { access, tables } = await thread();
    const { file, result } = await tables.access.query('F1', QUERY);
    expect(file.name).toBe('sales.csv');
    for (const [i, region] of [...REGIONS].sort().entries()) {
      expect(result.rows[i]!.slice(0, 3)).toEqual([region, sales.byRegion.get(region)!.count, sales.byRegion.get(region)!.units]);
    }

    const stored = await tables.results.save({ sourceFileId: 'F1', sourceFileName: 'sales.csv', sql: QUERY, ...result });
    expect([stored.id, stored.name]).toEqual(['F1.q1', 'sales.q1.csv']);
    expect(access.get('F1.q1')).toMatchObject({ sourceId: 'F1', mimeType: 'text/csv', name: 'sales.q1.csv' });
    const text = (await access.readText('F1.q1')).text;
    expect(text.split('\r\n')[0]).toBe('region,orders,units,busy');
    const bytes = await access.readBytes('F1.q1');
    expect(Buffer.from(bytes.bytes).toString('utf8')).toBe(text);
    // A second result of the same file gets the next number.
    const again = await tables.results.save({ sourceFileId: 'F1', sourceFileName: 'sales.csv', sql: QUERY, ...result });
    expect(again.id).toBe('F1.q2');
  });

  it('gives a later run the exact result back (numbers and booleans typed), and a result is a table too', async () => {
    const { threadId, tables, open, tablesOf } = await thread();
    const { result } = await tables.access.query('F1', QUERY);
    await tables.results.save({ sourceFileId: 'F1', sourceFileName: 'sales.csv', sql: QUERY, ...result });

    const files = await listThreadFiles(bed.handle.db, threadId);
    expect(files.map((f) => f.id)).toEqual(['F1', 'F1.q1', 'F2']);
    const later = tablesOf(open(files));
    const back = await later.results.get('F1.q1');
    expect(back).toMatchObject({ id: 'F1.q1', sourceFileId: 'F1', sql: QUERY, columns: result.columns, totalRows: 5, totalRowsExact: true, truncated: false });
    expect(back!.rows).toEqual(result.rows);
    expect(await later.results.get('F1')).toBeUndefined();

    const over = await later.access.query('F1.q1', 'SELECT sum(units) AS total FROM data');
    expect(over.result.rows).toEqual([[[...sales.byRegion.values()].reduce((sum, r) => sum + r.units, 0)]]);
  });

  it('refuses a file that is not a table and an id that is not in the thread, with sentences', async () => {
    const { tables } = await thread();
    await expect(tables.access.query('F2', 'SELECT 1')).rejects.toThrow(FileReadError);
    await expect(tables.access.query('F2', 'SELECT 1')).rejects.toThrow(/notes\.txt\) is not a table query_table reads/);
    await expect(tables.access.query('/etc/passwd', 'SELECT 1')).rejects.toThrow(UnknownFileError);
  });

  it('removes the results with their source file when Slack deletes it', async () => {
    const { threadId, csv, tables } = await thread();
    const { result } = await tables.access.query('F1', QUERY);
    await tables.results.save({ sourceFileId: 'F1', sourceFileName: 'sales.csv', sql: QUERY, ...result });
    await forgetSlackFile(bed.handle.db, csv.id);
    expect((await listThreadFiles(bed.handle.db, threadId)).map((f) => f.id)).toEqual(['F2']);
  });

  it('sweeps results with the other derived content; reading one afterwards says how to get it back', async () => {
    const { threadId, tables, open, tablesOf } = await thread();
    const { result } = await tables.access.query('F1', QUERY);
    await tables.results.save({ sourceFileId: 'F1', sourceFileName: 'sales.csv', sql: QUERY, ...result });
    const before = await listThreadFiles(bed.handle.db, threadId);
    await sweepExpiredContent(bed.handle.db, 0);

    const later = open(before);
    expect(await tablesOf(later).results.get('F1.q1')).toBeUndefined();
    await expect(later.readText('F1.q1')).rejects.toThrow('was a query result that is no longer kept; run query_table again to get it back.');
  });
});
