/**
 * A workbook's sheets as CSV text, for DuckDB to load with its own type detection. DuckDB's excel extension would
 * need downloading at run time, so the engine reads the workbook with exceljs (already a dependency) and hands each
 * sheet over as CSV: typed cells become their plain text (dates ISO 8601, formulas their cached result), and the
 * first non-empty row is the header.
 */
import ExcelJS from 'exceljs';

export interface SheetAsCsv {
  name: string;
  csv: string;
  rowCount: number;
}

export async function readWorkbookSheets(bytes: Uint8Array): Promise<SheetAsCsv[]> {
  const workbook = new ExcelJS.Workbook();
  // exceljs types `load` for Node's Buffer of an older @types/node; the bytes are the same.
  await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  const sheets: SheetAsCsv[] = [];
  for (const worksheet of workbook.worksheets) {
    const rows: string[][] = [];
    let width = 0;
    worksheet.eachRow({ includeEmpty: false }, (row) => {
      const cells: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell, column) => {
        cells[column - 1] = cellToText(cell.value);
      });
      width = Math.max(width, cells.length);
      rows.push(cells);
    });
    if (rows.length === 0 || width === 0) continue;
    const lines = rows.map((cells) => Array.from({ length: width }, (_, i) => csvField(cells[i] ?? '')).join(','));
    sheets.push({ name: worksheet.name, csv: `${lines.join('\n')}\n`, rowCount: rows.length - 1 });
  }
  return sheets;
}

/** A cell's value as the text a person sees in it (its cached result for a formula). */
function cellToText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return isoDate(value);
  if (typeof value !== 'object') return String(value);
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  if ('formula' in value || 'sharedFormula' in value) {
    const result = (value as { result?: ExcelJS.CellValue }).result;
    return result === undefined || (typeof result === 'object' && result !== null && 'error' in result) ? '' : cellToText(result);
  }
  if ('hyperlink' in value) return String((value as { text?: unknown }).text ?? value.hyperlink);
  if ('error' in value) return '';
  return String(value);
}

/** A date cell: the day alone when it has no time of day (the common case), else date and time, in UTC as stored. */
function isoDate(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}
