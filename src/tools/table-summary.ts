/**
 * For extract_file and peek_file on a tabular file (CSV, TSV, XLSX, Parquet, JSON, a query result): its tables,
 * columns, types and row counts, so the model knows it can ask query_table exact questions instead of reading rows.
 */
import type { ThreadFile } from '../core/thread-file';
import { describeTableFile } from '../tables/describe-table-file';
import { tableKindOf } from '../tables/table-kind';
import type { ToolContext } from './tool';

/** The "columns, types, row count" block, or undefined for a file that is not a table (or cannot be read as one). */
export async function describeIfTable(file: ThreadFile, context: Pick<ToolContext, 'tables' | 'signal'>): Promise<string | undefined> {
  if (!context.tables || file.error || !tableKindOf(file)) return undefined;
  try {
    return describeTableFile(file.id, await context.tables.access.describe(file.id, context.signal));
  } catch (error) {
    // Not a table after all (a JSON object, a CSV without a header…): the text tools still read it.
    if (context.signal.aborted) throw error;
    return undefined;
  }
}
