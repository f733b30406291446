/** A result as CSV (RFC 4180: quotes doubled, fields with commas, quotes or line breaks quoted), for attach_file. */
import { cellText } from './cell-values';
import type { CellValue, TableColumn } from './types';

export function resultToCsv(result: { columns: TableColumn[]; rows: CellValue[][] }): string {
  const lines = [result.columns.map((column) => csvField(column.name)), ...result.rows.map((row) => row.map((cell) => csvField(cellText(cell))))];
  return `${lines.map((fields) => fields.join(',')).join('\r\n')}\r\n`;
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
