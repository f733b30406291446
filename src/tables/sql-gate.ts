/**
 * The door every query passes before it runs: exactly one read-only SELECT (WITH, FROM-first, UNION… included),
 * decided by DuckDB's own parser and binder rather than by pattern-matching the text. Three checks, each enough on
 * its own for what it covers:
 *
 * 1. `json_serialize_sql` parses the text without binding it and serializes only SELECT statements; anything else
 *    (COPY, ATTACH, INSTALL, LOAD, SET, PRAGMA, INSERT, CREATE…) comes back as "Only SELECT statements…".
 * 2. The parsed tree names its table functions; those that read files or run SQL of their own are refused with a
 *    sentence, before DuckDB ever sees them bound.
 * 3. The statement is prepared (bound): its statement type must be SELECT, and with external access switched off
 *    and the configuration locked, any file access left fails here with DuckDB's permission error.
 *
 * The real wall is (3)'s configuration, set when the file was loaded; (1) and (2) give the model a clear sentence.
 */
import { messageOf } from '../core/errors';
import { StatementType, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import { QueryFailedError, QueryRefusedError } from './table-errors';

/** Table functions that read files by path or run SQL text of their own (which would step around check 1). */
const FILE_OR_SQL_TABLE_FUNCTION = /^(read_|parquet_|iceberg_|delta_|sniff_|glob$|query$|query_table$)|_scan$/i;

const STATEMENT_SENTENCES: Record<string, string> = {
  COPY: 'COPY is refused: query_table cannot write or read files. To give someone a result as a file, call attach_file with the result id.',
  EXPORT: 'EXPORT DATABASE is refused: query_table cannot write files. To give someone a result as a file, call attach_file with the result id.',
  ATTACH: 'ATTACH is refused: query_table reads only the tables of this file, no other database.',
  DETACH: 'DETACH is refused: query_table reads only the tables of this file.',
  INSTALL: 'INSTALL is refused: query_table cannot install DuckDB extensions; the built-in functions (including JSON and Parquet) are available.',
  FORCE: 'INSTALL is refused: query_table cannot install DuckDB extensions; the built-in functions (including JSON and Parquet) are available.',
  LOAD: 'LOAD is refused: query_table cannot load DuckDB extensions; the built-in functions (including JSON and Parquet) are available.',
  SET: 'SET is refused: the engine\'s settings are fixed for safety.',
  RESET: 'RESET is refused: the engine\'s settings are fixed for safety.',
  PRAGMA: 'PRAGMA is refused: query_table runs SELECT statements only. To see the columns, use DESCRIBE-free SQL such as SELECT * FROM data LIMIT 5.',
  CALL: 'CALL is refused: query_table runs SELECT statements only.',
};

const WRITE_KEYWORDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'CREATE', 'DROP', 'ALTER', 'TRUNCATE', 'MERGE', 'VACUUM', 'CHECKPOINT', 'ANALYZE', 'BEGIN', 'COMMIT', 'ROLLBACK', 'USE', 'PREPARE', 'EXECUTE', 'DEALLOCATE', 'UPDATE_EXTENSIONS']);

/**
 * Parses, checks and prepares `sql`. Returns the prepared statement, ready to run; throws QueryRefusedError with a
 * sentence for anything but one read-only SELECT, and QueryFailedError for a syntax error (DuckDB's sentence).
 */
export async function prepareReadOnlyQuery(connection: DuckDBConnection, sql: string, context: Record<string, unknown>): Promise<DuckDBPreparedStatement> {
  const tree = await parseWithoutBinding(connection, sql, context);
  if (tree.statements.length !== 1) {
    throw new QueryRefusedError(
      `query_table runs exactly one statement per call; this text holds ${tree.statements.length}. Send each SELECT in its own call, or combine them with WITH … or UNION ALL.`,
      context,
    );
  }
  const refused = [...tableFunctionNames(tree.statements[0])].filter((name) => FILE_OR_SQL_TABLE_FUNCTION.test(name));
  if (refused.length > 0) {
    throw new QueryRefusedError(
      `${refused.map((name) => `${name}()`).join(', ')} ${refused.length === 1 ? 'is' : 'are'} refused: query_table reads no files by path and runs no SQL text of its own. The thread's file is already loaded: query the table data (and a workbook's sheets by name).`,
      context,
    );
  }

  let prepared: DuckDBPreparedStatement;
  try {
    const extracted = await connection.extractStatements(sql);
    if (extracted.count !== 1) {
      throw new QueryRefusedError(`query_table runs exactly one statement per call; this text holds ${extracted.count}.`, context);
    }
    prepared = await extracted.prepare(0);
  } catch (error) {
    if (error instanceof QueryRefusedError) throw error;
    throw describeBindError(error, context);
  }
  if (prepared.statementType !== StatementType.SELECT) {
    prepared.destroySync();
    throw new QueryRefusedError(sentenceForStatement(sql), context);
  }
  return prepared;
}

interface ParsedStatements {
  statements: unknown[];
}

/** DuckDB's parser, through json_serialize_sql: no binding, no execution, only SELECTs serialize. */
async function parseWithoutBinding(connection: DuckDBConnection, sql: string, context: Record<string, unknown>): Promise<ParsedStatements> {
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
  const text = reader.getRowsJson()[0]?.[0];
  const parsed = JSON.parse(typeof text === 'string' ? text : JSON.stringify(text)) as
    | { error: false; statements: unknown[] }
    | { error: true; error_type?: string; error_message?: string };
  if (!parsed.error) return parsed;
  const message = parsed.error_message ?? 'the statement could not be parsed';
  if (/only select statements/i.test(message)) throw new QueryRefusedError(sentenceForStatement(sql), context);
  throw new QueryFailedError(`DuckDB could not parse the query: ${message}`, context);
}

/** Every table function the parsed statement calls, at any depth (CTEs, subqueries, joins, set operations). */
function tableFunctionNames(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) tableFunctionNames(item, found);
  } else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (record.type === 'TABLE_FUNCTION') {
      const fn = record.function as { function_name?: unknown } | undefined;
      if (typeof fn?.function_name === 'string') found.add(fn.function_name);
    }
    for (const value of Object.values(record)) tableFunctionNames(value, found);
  }
  return found;
}

/** The refusal sentence for a statement that is not a SELECT, named by its first keyword (only for wording). */
function sentenceForStatement(sql: string): string {
  const keyword = firstKeyword(sql);
  const known = STATEMENT_SENTENCES[keyword];
  if (known) return known;
  if (WRITE_KEYWORDS.has(keyword)) {
    return `${keyword} is refused: query_table is read-only and runs a single SELECT. Use WITH … for intermediate steps instead of creating or changing tables.`;
  }
  return `Only a single read-only SELECT statement (WITH …, FROM …, UNION… included) is allowed${keyword ? `; ${keyword} is refused` : ''}.`;
}

function firstKeyword(sql: string): string {
  const withoutComments = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ').trimStart().replace(/^[(\s]+/, '');
  return /^[A-Za-z_]+/.exec(withoutComments)?.[0]?.toUpperCase() ?? '';
}

/** A binding failure: a permission error means the query reached for a file; anything else is DuckDB's sentence. */
function describeBindError(error: unknown, context: Record<string, unknown>): Error {
  const message = messageOf(error);
  if (/Permission Error|disabled by configuration/i.test(message)) {
    return new QueryRefusedError(
      `Reading or writing files is refused: query_table works only on the thread's file, already loaded as the table data. (DuckDB: ${firstLine(message)})`,
      context,
    );
  }
  return new QueryFailedError(message.replace(/^Failed to prepare extracted statement:?\s*/i, ''), context);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
