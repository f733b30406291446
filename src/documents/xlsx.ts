/**
 * XLSX to markdown: one "## Sheet: Name" section and one markdown table per sheet, values as Excel shows them
 * (formula results, not formulas), rows capped per sheet and in total with the rest counted in `notes`.
 */
import type ExcelJS from 'exceljs';
import type { ExtractedDocument } from '../core/thread-file';
import { DocumentBuilder } from './document-builder';
import { loadExcelJs } from './libraries';
import { checkOfficeContainer } from './office-container';
import { corruptError, noTextError } from './read-errors';
import { TableBudget } from './table-budget';
import type { ExtractLimits } from './task';

export async function readXlsx(bytes: Uint8Array, name: string, limits: ExtractLimits): Promise<ExtractedDocument> {
  checkOfficeContainer(bytes, name, limits);
  const { Workbook } = await loadExcelJs();
  const workbook = new Workbook();
  try {
    // exceljs types its input as an ArrayBuffer but hands it to JSZip, which takes any byte view: no copy needed.
    await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  } catch (error) {
    throw corruptError(name, 'its workbook structure is unreadable', error);
  }
  const builder = new DocumentBuilder();
  const budget = new TableBudget(limits);
  let rowsWithValues = 0;
  workbook.worksheets.forEach((sheet, index) => {
    const hidden = sheet.state === 'hidden' || sheet.state === 'veryHidden' ? ' (hidden)' : '';
    builder.endBlock().startSegment('sheet', index + 1, `Sheet '${sheet.name}'`);
    builder.appendHeading(`## Sheet: ${sheet.name}${hidden}`, sheet.name, 1);
    const rows: string[][] = [];
    let totalRows = 0;
    sheet.eachRow({ includeEmpty: false }, (row) => {
      totalRows++;
      if (!budget.admits(rows.length)) return;
      const values = row.values as ExcelJS.CellValue[];
      const cells = Array.from({ length: Math.max(0, values.length - 1) }, (_, i) => formatCellValue(values[i + 1]));
      rows.push(cells);
      budget.spend(cells);
    });
    budget.appendTable(builder, rows, totalRows, `'${sheet.name}'`);
    rowsWithValues += totalRows;
  });
  // Sheet headings alone are not content: a workbook of empty sheets has nothing to read.
  if (rowsWithValues === 0) throw noTextError(name);
  builder.append('\n');
  return builder.build(workbook.worksheets.length);
}

function formatCellValue(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return formatDate(value);
  if (typeof value === 'number') return String(Number(value.toPrecision(15)));
  if (typeof value !== 'object') return String(value);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('hyperlink' in value) return typeof value.text === 'string' ? value.text : formatCellValue(value.text);
  if ('error' in value) return value.error;
  if ('result' in value && value.result !== undefined) return formatCellValue(value.result);
  if ('formula' in value && value.formula) return `=${value.formula}`;
  return '';
}

/** Excel dates carry no zone; exceljs hands them over as UTC, so print them in UTC, without midnight times. */
function formatDate(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 16).replace('T', ' ');
}
