/**
 * A loaded file's tables as a short text block: names, columns with types, row counts. The model reads it in
 * query errors ("the columns that exist") and in extract_file/peek_file results for tabular files.
 */
import { quoteIdentifier } from './quote-identifier';
import type { LoadedFile, LoadedTable } from './types';

/** Most columns listed per table: a 300-column export is summarised, not pasted. */
const MAX_LISTED_COLUMNS = 60;

export function formatTableList(file: Pick<LoadedFile, 'tables'>): string {
  return ['Tables and columns:', ...file.tables.map(formatTable)].join('\n');
}

function formatTable(table: LoadedTable): string {
  const name = /^[a-z_][a-z0-9_]*$/.test(table.name) ? table.name : quoteIdentifier(table.name);
  const listed = table.columns.slice(0, MAX_LISTED_COLUMNS).map((column) => `${displayColumn(column.name)} ${column.type}`);
  const more = table.columns.length > MAX_LISTED_COLUMNS ? `, … ${table.columns.length - MAX_LISTED_COLUMNS} more columns` : '';
  const alias = table.aliasOf ? ` (the sheet ${JSON.stringify(table.aliasOf)})` : '';
  return `- ${name}${alias}: ${table.rowCount.toLocaleString('en-US')} rows; ${listed.join(', ')}${more}`;
}

/** A column as it must be written in SQL: plain when it is a simple lower-case name, quoted otherwise. */
function displayColumn(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : quoteIdentifier(name);
}
