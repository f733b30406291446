/**
 * A result as an XLSX workbook, for attach_file(id, format "xlsx"): one sheet, the header row bold and frozen,
 * typed cells — numbers as numbers, DATE and TIMESTAMP columns as dates, booleans as booleans — and everything else
 * as its text (nested values as JSON; an integer too large for a double stays text, as in the CSV). Written with
 * exceljs, which the engine's process already loads to read workbooks (xlsx-sheets.ts); DuckDB's own XLSX writer
 * needs an extension, and extensions are never loaded. Runs in the engine's process, off the app's event loop.
 */
import ExcelJS from 'exceljs';
import { cellText } from './cell-values';
import type { CellValue, TableColumn } from './types';

/** Excel's limits on a sheet's name: 31 characters, none of []:*?/\ . */
const SHEET_NAME_MAX = 31;
const DATE_TYPE = /^DATE$/;
const TIMESTAMP_TYPE = /^TIMESTAMP(_S|_MS|_NS)?$/;
/** DuckDB's text of a DATE or TIMESTAMP (no time zone): "2024-03-01", "2024-03-01 09:30:00.25". */
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?)?$/;

export async function resultToXlsx(result: { columns: TableColumn[]; rows: CellValue[][] }, sheetName: string): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(cleanSheetName(sheetName), { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = result.columns.map((column) => ({
    header: column.name,
    key: column.name,
    width: Math.min(40, Math.max(10, [...column.name].length + 2)),
    style: DATE_TYPE.test(column.type) ? { numFmt: 'yyyy-mm-dd' } : TIMESTAMP_TYPE.test(column.type) ? { numFmt: 'yyyy-mm-dd hh:mm:ss' } : {},
  }));
  sheet.getRow(1).font = { bold: true };
  for (const row of result.rows) sheet.addRow(result.columns.map((column, i) => xlsxValue(row[i] ?? null, column.type)));
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

function xlsxValue(value: CellValue, type: string): ExcelJS.CellValue {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string' && (DATE_TYPE.test(type) || TIMESTAMP_TYPE.test(type))) return dateOf(value) ?? value;
  return cellText(value);
}

/** The date DuckDB wrote, as the UTC instant Excel shows as that same wall time; undefined for what does not parse. */
function dateOf(text: string): Date | undefined {
  const parts = DATE_TEXT.exec(text);
  if (!parts) return undefined;
  const [, year, month, day, hours = '0', minutes = '0', seconds = '0', fraction = ''] = parts;
  const ms = fraction ? Math.round(Number(fraction) * 1000) : 0;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hours), Number(minutes), Number(seconds), ms));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function cleanSheetName(name: string): string {
  const cleaned = name.replace(/[[\]:*?/\\]/g, ' ').replace(/^'+|'+$/g, '').trim();
  return [...(cleaned || 'result')].slice(0, SHEET_NAME_MAX).join('');
}
