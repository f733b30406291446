/**
 * A result as a table a person can read in Slack: the table block where it fits (Slack's limits: at most 100
 * rows including the header, 20 cells per row), otherwise an aligned table in a code block, at most ~100 rows.
 */
import type { KnownBlock } from '@slack/types';
import { cellText } from '../tables/cell-values';
import type { CellValue, TableColumn } from '../tables/types';

/** Slack's table block: 100 rows (the header row counts), 20 cells per row (docs.slack.dev, table block). */
const TABLE_BLOCK_MAX_ROWS = 100;
const TABLE_BLOCK_MAX_COLUMNS = 20;
/** A cell is cut past this many characters so one long text cannot make the message too large. */
const MAX_CELL_CHARS = 200;
/** Rows shown in the code-block fallback, and the widest a column gets there. */
export const CODE_TABLE_MAX_ROWS = 100;
const CODE_TABLE_MAX_COLUMN_WIDTH = 40;

export interface TableData {
  columns: TableColumn[];
  rows: CellValue[][];
}

/** Whether the whole result fits one Slack table block (header + rows ≤ 100, columns ≤ 20). */
export function fitsTableBlock(result: TableData): boolean {
  return result.columns.length > 0 && result.columns.length <= TABLE_BLOCK_MAX_COLUMNS && result.rows.length + 1 <= TABLE_BLOCK_MAX_ROWS;
}

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|DECIMAL|FLOAT|DOUBLE)/;

/** The result as a Slack table block: a header row, then one row per result row; numbers right-aligned. */
export function toTableBlock(result: TableData): KnownBlock {
  if (!fitsTableBlock(result)) throw new RangeError('the result does not fit a table block; check fitsTableBlock first');
  const cell = (text: string) => ({ type: 'raw_text' as const, text: clip(text, MAX_CELL_CHARS) || ' ' });
  return {
    type: 'table',
    column_settings: result.columns.map((column) => ({ align: NUMERIC.test(column.type) ? ('right' as const) : ('left' as const) })),
    rows: [result.columns.map((column) => cell(column.name)), ...result.rows.map((row) => result.columns.map((_, i) => cell(cellText(row[i] ?? null))))],
  } as KnownBlock;
}

/**
 * The result as an aligned plain-text table inside ``` fences, at most CODE_TABLE_MAX_ROWS rows (a last line says
 * how many more there are); numbers right-aligned, long cells cut with "…".
 */
export function toCodeBlockTable(result: TableData, options: { maxRows?: number; totalRows?: number } = {}): string {
  const maxRows = Math.min(options.maxRows ?? CODE_TABLE_MAX_ROWS, CODE_TABLE_MAX_ROWS);
  const shown = result.rows.slice(0, maxRows);
  const numeric = result.columns.map((column) => NUMERIC.test(column.type));
  const cells = [result.columns.map((column) => column.name), ...shown.map((row) => result.columns.map((_, i) => cellText(row[i] ?? null)))].map((row) =>
    row.map((text) => clip(text.replace(/\s+/g, ' '), CODE_TABLE_MAX_COLUMN_WIDTH)),
  );
  const widths = result.columns.map((_, i) => Math.max(...cells.map((row) => [...row[i]!].length)));
  const line = (row: string[]) => row.map((text, i) => (numeric[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!))).join('  ').trimEnd();
  const lines = [line(cells[0]!), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)];
  const total = options.totalRows ?? result.rows.length;
  if (total > shown.length) lines.push(`… ${(total - shown.length).toLocaleString('en-US')} more rows`);
  return `\`\`\`\n${lines.join('\n')}\n\`\`\``;
}

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
