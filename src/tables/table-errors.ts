/**
 * Every failure of the table engine as a ThreadwiseError: the message is a sentence the model can act on (what
 * went wrong, what exists, what to do instead); `context` names the file for the log.
 */
import { ThreadwiseError, messageOf } from '../core/errors';

export type TableErrorCode =
  | 'table_load_failed'
  | 'table_not_loaded'
  | 'query_refused'
  | 'query_failed'
  | 'query_timeout'
  | 'query_cancelled'
  | 'table_engine_failed';

export class TableError extends ThreadwiseError<TableErrorCode> {
  override readonly name: string = 'TableError';
}

/** The file could not be read as a table (not CSV after all, a broken workbook, out of memory while loading). */
export class TableLoadError extends TableError {
  constructor(message: string, options?: { cause?: unknown; context?: Record<string, unknown> }) {
    super('table_load_failed', message, options);
  }
}

/** The engine no longer holds this file (evicted, or its process restarted): load it again, then query. */
export class TableNotLoadedError extends TableError {
  constructor(key: string) {
    super('table_not_loaded', `The table for content ${key} is not loaded; load the file again before querying it.`, { context: { key } });
  }
}

/** A statement query_table does not run: not a single read-only SELECT, or it reaches outside the file. */
export class QueryRefusedError extends TableError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('query_refused', message, { context });
  }
}

/** DuckDB rejected the query (a typo in a column, a type error): its sentence, plus the tables and columns. */
export class QueryFailedError extends TableError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('query_failed', message, { context });
  }
}

/** The query ran past its time limit and was interrupted; the engine answers the next query. */
export class QueryTimeoutError extends TableError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('query_timeout', message, { context });
  }
}

/** The caller's signal aborted the query (the run was cancelled or the tool timed out). */
export class QueryCancelledError extends TableError {
  constructor(context: Record<string, unknown> = {}) {
    super('query_cancelled', 'The query was cancelled before it finished.', { context });
  }
}

/** The engine's process failed (crashed, or would not start); the next call starts a fresh one. */
export class TableEngineError extends TableError {
  constructor(message: string, options?: { cause?: unknown; context?: Record<string, unknown> }) {
    super('table_engine_failed', message, options);
  }
}

/** An error as it crosses the process boundary, rebuilt on the other side with its code. */
export interface SerializedTableError {
  code: TableErrorCode;
  message: string;
  context: Record<string, unknown>;
}

export function serializeTableError(error: unknown): SerializedTableError {
  if (error instanceof TableError) return { code: error.code, message: error.message, context: error.context };
  const message = messageOf(error);
  return { code: 'table_engine_failed', message, context: {} };
}

export function deserializeTableError(error: SerializedTableError): TableError {
  switch (error.code) {
    case 'table_load_failed':
      return new TableLoadError(error.message, { context: error.context });
    case 'table_not_loaded':
      return new TableNotLoadedError(String(error.context.key ?? 'unknown'));
    case 'query_refused':
      return new QueryRefusedError(error.message, error.context);
    case 'query_failed':
      return new QueryFailedError(error.message, error.context);
    case 'query_timeout':
      return new QueryTimeoutError(error.message, error.context);
    case 'query_cancelled':
      return new QueryCancelledError(error.context);
    case 'table_engine_failed':
      return new TableEngineError(error.message, { context: error.context });
  }
}
