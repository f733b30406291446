/**
 * A thread's view of the engine: query and describe by the thread's file id, loading the file from the file store
 * on first use (and again after the engine dropped it or restarted). The lead wires `readTableFile` to the file
 * store: it returns the content hash, kind, name and bytes of a thread file, or throws for an id not in the thread.
 */
import type { TableEngine } from './table-engine';
import { TableError } from './table-errors';
import type { CellValue, LoadedFile, QueryLimits, TableColumn, TableResult, TableSource } from './types';

/** SQL over the thread's tabular files (src/tables/table-access.ts implements it over the engine). */
export interface TableAccess {
  /** Runs one read-only SELECT over a thread file; throws a TableError with a sentence for the model. */
  query(fileId: string, sql: string, signal?: AbortSignal): Promise<{ file: LoadedFile; result: TableResult }>;
  /** The file's tables, columns, types and row counts (loading it on first use). */
  describe(fileId: string, signal?: AbortSignal): Promise<LoadedFile>;
  /** A result as an XLSX workbook of one sheet, written off the event loop (the engine's process). */
  writeXlsx(result: { columns: TableColumn[]; rows: CellValue[][] }, sheetName: string): Promise<Uint8Array>;
}

export interface TableFileReader {
  /** The file's bytes (or stored path) with its content hash and kind; throws for an unknown or non-table file. */
  (fileId: string, signal?: AbortSignal): Promise<TableSource>;
}

export function createTableAccess(options: { engine: TableEngine; readTableFile: TableFileReader; limits?: Partial<QueryLimits> }): TableAccess {
  const { engine, readTableFile } = options;
  /** The content hash each file id was loaded under, so a second query skips the file store. */
  const keys = new Map<string, string>();

  const ensureLoaded = async (fileId: string, signal?: AbortSignal): Promise<LoadedFile> => {
    const key = keys.get(fileId);
    if (key && engine.isLoaded(key)) return engine.describe(key);
    const source = await readTableFile(fileId, signal);
    keys.set(fileId, source.key);
    return engine.load(source);
  };

  return {
    describe: (fileId, signal) => ensureLoaded(fileId, signal),
    writeXlsx: (result, sheetName) => engine.writeXlsx(result, sheetName),
    async query(fileId, sql, signal) {
      const file = await ensureLoaded(fileId, signal);
      try {
        return { file, result: await engine.query(file.key, sql, { signal, limits: options.limits }) };
      } catch (error) {
        // Dropped or restarted between the load and the query: load once more and retry.
        if (!(error instanceof TableError) || (error.code !== 'table_not_loaded' && error.code !== 'table_engine_failed')) throw error;
        const reloaded = await ensureLoaded(fileId, signal);
        return { file: reloaded, result: await engine.query(reloaded.key, sql, { signal, limits: options.limits }) };
      }
    },
  };
}
