/**
 * Loads one file into a DuckDB database of its own and then closes the doors: each file gets its own in-memory
 * instance, so a query in one thread can never name another thread's table, and once the file is in, external
 * access is switched off and the configuration locked (DuckDB refuses to switch either back on).
 */
import { messageOf } from '../core/errors';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { quoteIdentifier, quoteLiteral } from './quote-identifier';
import { TableLoadError } from './table-errors';
import type { LoadedFile, LoadedTable, TableKind } from './types';
import type { InstanceSettings } from './engine-protocol';
import { readWorkbookSheets } from './xlsx-sheets';

export interface LoadedDatabase {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  file: LoadedFile;
}

/** The table every file is, whatever its kind (DESIGN.md § Contract). */
const DATA_TABLE = 'data';

export async function loadTableFile(
  input: { key: string; name: string; kind: TableKind; path: string; scratchDir: string },
  settings: InstanceSettings,
): Promise<LoadedDatabase> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(settings.threads),
    memory_limit: `${settings.memoryLimitMb}MB`,
    // No spilling to disk: an in-memory database would otherwise write temp files into the working directory.
    temp_directory: '',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
  });
  const connection = await instance.connect();
  const context = { key: input.key, file: input.name, kind: input.kind };
  try {
    const tables = await createTables(connection, input);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
    return { instance, connection, file: { key: input.key, name: input.name, kind: input.kind, tables: await describeTables(connection, tables) } };
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    if (error instanceof TableLoadError) throw error;
    throw new TableLoadError(`${input.name} could not be read as ${describeKind(input.kind)}: ${firstLine(error)}`, { cause: error, context });
  }
}

interface CreatedTable {
  name: string;
  aliasOf?: string;
}

async function createTables(connection: DuckDBConnection, input: { name: string; kind: TableKind; path: string; scratchDir: string }): Promise<CreatedTable[]> {
  const source = quoteLiteral(input.path);
  switch (input.kind) {
    case 'csv':
      await createFromCsv(connection, DATA_TABLE, source, '');
      return [{ name: DATA_TABLE }];
    case 'tsv':
      await createFromCsv(connection, DATA_TABLE, source, ", delim = '\\t'");
      return [{ name: DATA_TABLE }];
    case 'parquet':
      await connection.run(`CREATE TABLE ${DATA_TABLE} AS SELECT * FROM read_parquet(${source})`);
      return [{ name: DATA_TABLE }];
    case 'json':
      // format 'auto' takes a JSON array of objects as well as newline-delimited JSON.
      await connection.run(`CREATE TABLE ${DATA_TABLE} AS SELECT * FROM read_json(${source}, format = 'auto')`);
      return [{ name: DATA_TABLE }];
    case 'xlsx':
      return createFromWorkbook(connection, input);
  }
}

/**
 * CSV through DuckDB's sniffer. Its sample is the first 20,480 rows; when a later row breaks the guessed types
 * (a number column with "n/a" at row 90,000) the whole file is sniffed instead, which is slower but right.
 */
async function createFromCsv(connection: DuckDBConnection, table: string, source: string, options: string): Promise<void> {
  const create = (extra: string) => connection.run(`CREATE TABLE ${quoteIdentifier(table)} AS SELECT * FROM read_csv(${source}, header = true${options}${extra})`);
  try {
    await create('');
  } catch (error) {
    if (!/Conversion Error|Could not convert|sniff/i.test(firstLine(error))) throw error;
    await create(', sample_size = -1');
  }
}

/** Each non-empty sheet becomes a table by its own name; `data` is a view of the first (unless a sheet is named so). */
async function createFromWorkbook(connection: DuckDBConnection, input: { name: string; path: string; scratchDir: string }): Promise<CreatedTable[]> {
  const sheets = await readWorkbookSheets(await readFile(input.path));
  if (sheets.length === 0) throw new TableLoadError(`${input.name} has no sheet with any cells, so there is no table to query.`, { context: { file: input.name } });
  const dir = await mkdtemp(path.join(input.scratchDir, 'sheets-'));
  try {
    const created: CreatedTable[] = [];
    for (const [index, sheet] of sheets.entries()) {
      const file = path.join(dir, `${index}.csv`);
      await writeFile(file, sheet.csv);
      await createFromCsv(connection, sheet.name, quoteLiteral(file), '');
      created.push({ name: sheet.name });
    }
    if (!sheets.some((sheet) => sheet.name.toLowerCase() === DATA_TABLE)) {
      await connection.run(`CREATE VIEW ${DATA_TABLE} AS SELECT * FROM ${quoteIdentifier(sheets[0]!.name)}`);
      created.unshift({ name: DATA_TABLE, aliasOf: sheets[0]!.name });
    }
    return created;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Columns, types and row counts of the tables just created, in the order they were created. */
async function describeTables(connection: DuckDBConnection, tables: CreatedTable[]): Promise<LoadedTable[]> {
  const described: LoadedTable[] = [];
  for (const table of tables) {
    const columns = await connection.runAndReadAll(
      'SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position',
      [table.name],
    );
    const count = await connection.runAndReadAll(`SELECT count(*) FROM ${quoteIdentifier(table.name)}`);
    described.push({
      name: table.name,
      columns: columns.getRowsJson().map(([name, type]) => ({ name: String(name), type: String(type) })),
      rowCount: Number(count.getRowsJson()[0]?.[0] ?? 0),
      ...(table.aliasOf ? { aliasOf: table.aliasOf } : {}),
    });
  }
  return described;
}

function describeKind(kind: TableKind): string {
  return { csv: 'CSV', tsv: 'tab-separated text', xlsx: 'an Excel workbook', parquet: 'Parquet', json: 'JSON' }[kind];
}

function firstLine(error: unknown): string {
  const message = messageOf(error);
  return message.split('\n')[0]!.trim();
}
