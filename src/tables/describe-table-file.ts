/**
 * The short "columns, types, row count" block for a tabular file, for extract_file's and peek_file's results: the
 * model learns what it can ask query_table without reading the rows.
 */
import { formatTableList } from './format-table-list';
import type { LoadedFile } from './types';

export function describeTableFile(fileId: string, file: LoadedFile): string {
  const sheets = file.tables.filter((table) => table.name !== 'data' || !table.aliasOf);
  const lead = file.kind === 'xlsx'
    ? `${fileId} is a workbook of ${sheets.length} sheet${sheets.length === 1 ? '' : 's'}; each is a table by its name, and data is the first.`
    : `${fileId} is a table: query it as data.`;
  return [
    lead,
    formatTableList(file),
    `Ask exact questions with query_table(${JSON.stringify(fileId)}, "SELECT … FROM data …") (DuckDB SQL; quote names with spaces in double quotes).`,
  ].join('\n');
}
