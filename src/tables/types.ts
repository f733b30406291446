/**
 * The shapes the table engine speaks, on both sides of its process boundary: what a file is loaded as, what a
 * query returns, and the limits a query runs under.
 */

/** The tabular formats query_table reads. Bytes come from the file store, never from a path the model names. */
export type TableKind = 'csv' | 'tsv' | 'xlsx' | 'parquet' | 'json';

/** One file to load: its content hash is the cache key, so the same bytes in two threads load once. */
export interface TableSource {
  /** Content hash of the bytes (the file store's key); equal bytes share one loaded copy. */
  key: string;
  kind: TableKind;
  /** The file's name, for sentences ("sales.csv has no header row"). */
  name: string;
  /** The file's bytes, or `path` to a file the file store wrote (never a path from the model). */
  bytes?: Uint8Array;
  path?: string;
}

export interface TableColumn {
  name: string;
  /** DuckDB's type name: "VARCHAR", "BIGINT", "DECIMAL(10,2)", "DATE". */
  type: string;
}

/** One table a file was loaded as: `data`, and for a workbook each sheet by its name. */
export interface LoadedTable {
  name: string;
  columns: TableColumn[];
  rowCount: number;
  /** For a workbook's `data`: the sheet it stands for. */
  aliasOf?: string;
}

export interface LoadedFile {
  key: string;
  name: string;
  kind: TableKind;
  tables: LoadedTable[];
}

/** A cell as JavaScript: numbers stay numbers while exact, larger integers become strings, nested values JSON. */
export type CellValue = string | number | boolean | null | CellValue[] | { [key: string]: CellValue };

export interface QueryLimits {
  /** Stop the query after this long (DuckDB's own interrupt; the engine stays usable). */
  timeoutMs: number;
  /** Rows kept in the result (what make_chart and attach_file get). */
  maxRows: number;
  /** Characters (as JSON) kept in the result, whichever cap comes first. */
  maxChars: number;
  /** Rows counted past `maxRows` for the total; beyond it the total is "more than". */
  maxCountedRows: number;
}

export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  timeoutMs: 10_000,
  maxRows: 10_000,
  maxChars: 4_000_000,
  maxCountedRows: 10_000_000,
};

export interface TableResult {
  columns: TableColumn[];
  rows: CellValue[][];
  /** Rows the query produced (counted to `maxCountedRows`); `totalRowsExact` false means "at least". */
  totalRows: number;
  totalRowsExact: boolean;
  /** True when `rows` holds fewer rows than the query produced. */
  truncated: boolean;
  /** Why `rows` stops early, as a sentence naming the limit; undefined when nothing was cut. */
  limitNote?: string;
  elapsedMs: number;
}
