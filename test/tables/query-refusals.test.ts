/**
 * Everything query_table refuses, each with its sentence, and proof that nothing outside the loaded file was read
 * or written: a canary file with a secret token next to the test is never read, COPY and ATTACH leave no file.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableEngine, type TableEngine } from '../../src/tables/table-engine';
import { TableError } from '../../src/tables/table-errors';
import { source } from './support/table-fixtures';

const SECRET = 'canary-7f3a9c-do-not-read';
let engine: TableEngine;
let key: string;
let dir: string;
let canary: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'threadwise-refusals-'));
  canary = path.join(dir, 'canary.csv');
  await writeFile(canary, `secret\n${SECRET}\n`);
  engine = createTableEngine();
  const file = source('people.csv', 'csv', new TextEncoder().encode('name,age\nAda,36\nBob,41\n'));
  key = file.key;
  await engine.load(file);
});
afterAll(async () => {
  await engine?.close();
  await rm(dir, { recursive: true, force: true });
});

async function refusal(sql: string): Promise<TableError> {
  const outcome = await engine.query(key, sql).then(
    (result) => result,
    (error: unknown) => error,
  );
  expect(outcome, `${sql} should be refused`).toBeInstanceOf(TableError);
  const error = outcome as TableError;
  expect(error.message).not.toContain(SECRET);
  return error;
}

describe('query_table refuses', () => {
  it("read_csv('/etc/passwd') and read_csv of a canary file", async () => {
    for (const target of ['/etc/passwd', canary]) {
      const error = await refusal(`SELECT * FROM read_csv('${target}')`);
      expect(error.code).toBe('query_refused');
      expect(error.message).toBe(
        'read_csv() is refused: query_table reads no files by path and runs no SQL text of its own. The thread\'s file is already loaded: query the table data (and a workbook\'s sheets by name).',
      );
    }
  });

  it('read_text, also hidden in a CTE or a UNION', async () => {
    for (const sql of [
      `SELECT content FROM read_text('${canary}')`,
      `WITH t AS (SELECT * FROM read_text('${canary}')) SELECT * FROM t`,
      `SELECT name FROM data UNION ALL SELECT content FROM read_text('${canary}')`,
    ]) {
      const error = await refusal(sql);
      expect(error.code).toBe('query_refused');
      expect(error.message).toMatch(/^read_text\(\) is refused/);
    }
  });

  it('a file named as a table (a replacement scan): the locked configuration stops it, not a word list', async () => {
    const error = await refusal(`SELECT * FROM '${canary}'`);
    expect(error.code).toBe('query_refused');
    expect(error.message).toMatch(/^Reading or writing files is refused: query_table works only on the thread's file/);
  });

  it('COPY … TO, and writes nothing', async () => {
    const target = path.join(dir, 'copied.csv');
    const error = await refusal(`COPY data TO '${target}'`);
    expect(error.code).toBe('query_refused');
    expect(error.message).toBe('COPY is refused: query_table cannot write or read files. To give someone a result as a file, call attach_file with the result id.');
    expect(existsSync(target)).toBe(false);
  });

  it('ATTACH, and creates no database file', async () => {
    const target = path.join(dir, 'other.duckdb');
    const error = await refusal(`ATTACH '${target}' AS other`);
    expect(error.message).toBe('ATTACH is refused: query_table reads only the tables of this file, no other database.');
    expect(existsSync(target)).toBe(false);
  });

  it('INSTALL httpfs and LOAD', async () => {
    expect((await refusal('INSTALL httpfs')).message).toMatch(/^INSTALL is refused: query_table cannot install DuckDB extensions/);
    expect((await refusal('LOAD httpfs')).message).toMatch(/^LOAD is refused: query_table cannot load DuckDB extensions/);
    expect((await refusal('FORCE INSTALL httpfs')).code).toBe('query_refused');
  });

  it('writes and schema changes: only a single read-only SELECT runs', async () => {
    for (const [sql, start] of [
      ["INSERT INTO data VALUES ('Eve', 30)", 'INSERT is refused'],
      ['DELETE FROM data', 'DELETE is refused'],
      ['CREATE TABLE t AS SELECT 1', 'CREATE is refused'],
      ['DROP TABLE data', 'DROP is refused'],
      ["SET enable_external_access = true", 'SET is refused'],
      ['PRAGMA database_list', 'PRAGMA is refused'],
    ] as const) {
      const error = await refusal(sql);
      expect(error.code, sql).toBe('query_refused');
      expect(error.message.startsWith(start), `${sql}: ${error.message}`).toBe(true);
    }
  });

  it('more than one statement, even when each is a SELECT', async () => {
    const error = await refusal('SELECT 1; SELECT 2');
    expect(error.message).toBe(
      'query_table runs exactly one statement per call; this text holds 2. Send each SELECT in its own call, or combine them with WITH … or UNION ALL.',
    );
  });

  it('SQL run through query() or query_table(), which would step around the statement check', async () => {
    expect((await refusal("SELECT * FROM query('SELECT 1')")).message).toMatch(/^query\(\) is refused/);
  });

  it('and after all of that, the table is unchanged and the temp folder holds only the canary', async () => {
    const result = await engine.query(key, 'SELECT name, age FROM data ORDER BY name');
    expect(result.rows).toEqual([
      ['Ada', 36],
      ['Bob', 41],
    ]);
    expect(await readdir(dir)).toEqual(['canary.csv']);
  });
});
