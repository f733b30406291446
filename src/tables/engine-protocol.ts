/**
 * Messages between the table engine (the app's process) and its DuckDB process. Sent with Node's "advanced"
 * serialization (structured clone), so nested rows and Uint8Arrays cross as they are.
 */
import type { SerializedTableError } from './table-errors';
import type { CellValue, LoadedFile, QueryLimits, TableColumn, TableKind, TableResult } from './types';

export type EngineRequest =
  | { id: number; type: 'load'; key: string; name: string; kind: TableKind; path: string }
  | { id: number; type: 'query'; key: string; sql: string; limits: QueryLimits }
  | { id: number; type: 'cancel'; target: number }
  | { id: number; type: 'drop'; key: string }
  | { id: number; type: 'xlsx'; sheetName: string; columns: TableColumn[]; rows: CellValue[][] }
  | { id: number; type: 'usage' };

/** A request before the engine numbers it (Omit over each member of the union, not over the union). */
export type EngineRequestBody = EngineRequest extends infer Request ? (Request extends EngineRequest ? Omit<Request, 'id'> : never) : never;

export type EngineReply =
  | { id: number; type: 'started' }
  | { id: number; type: 'done'; value: LoadedFile | TableResult | ProcessUsage | Uint8Array | null }
  | { id: number; type: 'failed'; error: SerializedTableError };

/** What the DuckDB process tells about itself (for the bench's peak RSS figure and for logs). */
export interface ProcessUsage {
  rssBytes: number;
  /** Peak resident set size of the process so far (getrusage's maxrss). */
  peakRssBytes: number;
  loadedKeys: string[];
}

/**
 * DuckDB's settings per loaded file. Declared here rather than beside the loader: the app's process imports this
 * protocol, and nothing it imports (not even a type) may lead to @duckdb/node-api, which only the DuckDB process loads.
 */
export interface InstanceSettings {
  /** DuckDB's memory_limit per file, in MB: a query needing more fails with DuckDB's out-of-memory sentence. */
  memoryLimitMb: number;
  /** Threads DuckDB may use per file. */
  threads: number;
}

/** Passed to the process when it starts (argv[2], JSON). */
export interface EngineProcessSettings extends InstanceSettings {
  /** A private directory for the workbook sheets' temporary CSV files. */
  scratchDir: string;
}
