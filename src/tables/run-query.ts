/**
 * Runs one checked query on a file's own connection under the query limits: DuckDB's interrupt at the deadline,
 * rows kept up to the row and character caps, the rest only counted (chunk sizes, no values converted) so the
 * model learns the total without the process holding a million rows.
 */
import { messageOf } from '../core/errors';
import { JsonDuckDBValueConverter, type DuckDBConnection } from '@duckdb/node-api';
import { toCellValues } from './cell-values';
import { prepareReadOnlyQuery } from './sql-gate';
import { QueryCancelledError, QueryFailedError, QueryTimeoutError, TableError } from './table-errors';
import { formatTableList } from './format-table-list';
import type { CellValue, LoadedFile, QueryLimits, TableColumn, TableResult } from './types';

/** Why a running query was interrupted: its deadline, or the caller's cancel. */
type StopReason = 'deadline' | 'cancelled';

export interface RunningQuery {
  /** Interrupts the query now (the caller's signal fired). */
  cancel(): void;
  result: Promise<TableResult>;
}

export function runQuery(connection: DuckDBConnection, file: LoadedFile, sql: string, limits: QueryLimits): RunningQuery {
  let stopReason: StopReason | undefined;
  const stop = (reason: StopReason) => {
    if (stopReason) return;
    stopReason = reason;
    connection.interrupt();
  };
  const deadline = setTimeout(() => stop('deadline'), limits.timeoutMs);
  const started = performance.now();
  const context = { key: file.key, file: file.name };

  const result = (async (): Promise<TableResult> => {
    const prepared = await prepareReadOnlyQuery(connection, sql, context).catch((error: unknown) => {
      throw withTableList(error, file);
    });
    const columns: TableColumn[] = Array.from({ length: prepared.columnCount }, (_, i) => ({
      name: prepared.columnName(i),
      type: prepared.columnType(i).toString(),
    }));
    const types = columns.map((column) => column.type);
    const rows: CellValue[][] = [];
    let keptChars = 0;
    let total = 0;
    let keeping = true;
    let totalExact = true;
    let cutBy: 'rows' | 'chars' | undefined;
    try {
      const stream = await prepared.stream();
      for (;;) {
        const chunk = await stream.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        if (keeping) {
          for (const raw of chunk.convertRows(JsonDuckDBValueConverter)) {
            const row = toCellValues(raw, types);
            const chars = JSON.stringify(row).length;
            if (rows.length >= limits.maxRows || keptChars + chars > limits.maxChars) {
              keeping = false;
              cutBy = rows.length >= limits.maxRows ? 'rows' : 'chars';
              break;
            }
            rows.push(row);
            keptChars += chars;
          }
        }
        total += chunk.rowCount;
        if (total >= limits.maxCountedRows) {
          totalExact = false;
          break;
        }
      }
    } catch (error) {
      // Interrupted while only counting past the caps: the rows kept are whole, the total becomes "at least".
      if (stopReason === 'deadline' && !keeping) {
        totalExact = false;
      } else {
        throw describeRunError(error, stopReason, file, limits);
      }
    } finally {
      clearTimeout(deadline);
      prepared.destroySync();
    }
    const truncated = rows.length < total || !totalExact;
    return {
      columns,
      rows,
      totalRows: total,
      totalRowsExact: totalExact,
      truncated,
      ...(truncated ? { limitNote: describeCut(rows.length, total, totalExact, cutBy, limits) } : {}),
      elapsedMs: Math.round(performance.now() - started),
    };
  })().finally(() => clearTimeout(deadline));

  return { cancel: () => stop('cancelled'), result };
}

function describeCut(kept: number, total: number, exact: boolean, cutBy: 'rows' | 'chars' | undefined, limits: QueryLimits): string {
  const totalText = exact ? `${total.toLocaleString('en-US')} rows` : `more than ${total.toLocaleString('en-US')} rows`;
  const limit = cutBy === 'chars'
    ? `the limit of ${limits.maxChars.toLocaleString('en-US')} characters per result`
    : `the limit of ${limits.maxRows.toLocaleString('en-US')} rows per result`;
  return `The query returned ${totalText}; only the first ${kept.toLocaleString('en-US')} are kept (${limit}). Aggregate (GROUP BY), filter (WHERE) or add LIMIT to get a smaller result.`;
}

function describeRunError(error: unknown, stopReason: StopReason | undefined, file: LoadedFile, limits: QueryLimits): Error {
  const context = { key: file.key, file: file.name };
  if (stopReason === 'deadline') {
    return new QueryTimeoutError(
      `The query was stopped after ${formatSeconds(limits.timeoutMs)}, the time limit per query. Make it cheaper: filter early, aggregate instead of listing rows, avoid joins that multiply rows.`,
      context,
    );
  }
  if (stopReason === 'cancelled') return new QueryCancelledError(context);
  return withTableList(error, file);
}

/** DuckDB's sentence, followed by the tables and columns that do exist so the model can fix a name at once. */
function withTableList(error: unknown, file: LoadedFile): Error {
  const context = { key: file.key, file: file.name };
  // Refusals, timeouts and cancels already say what to do; only DuckDB's own failures get the table list.
  if (error instanceof TableError && !(error instanceof QueryFailedError)) return error;
  const message = messageOf(error).trim();
  return new QueryFailedError(`${message}\n${formatTableList(file)}`, error instanceof QueryFailedError ? error.context : context);
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
