/**
 * CSV/TSV to one markdown table, decoded from whatever encoding it is in, rows capped like a spreadsheet sheet.
 */
import type { ExtractedDocument } from '../core/thread-file';
import { decodeText } from './decode-text';
import { DocumentBuilder } from './document-builder';
import { detectDelimiter, parseCsv } from './parse-csv';
import { noTextError } from './read-errors';
import { TableBudget } from './table-budget';
import type { ExtractLimits } from './task';

export async function readCsv(bytes: Uint8Array, name: string, limits: ExtractLimits): Promise<ExtractedDocument> {
  const { text, encoding } = decodeText(bytes);
  const delimiter = /\.tsv$/i.test(name) ? '\t' : detectDelimiter(text);
  const budget = new TableBudget(limits);
  const { rows, totalRows } = parseCsv(text, delimiter, (kept, row) => {
    if (!budget.admits(kept)) return false;
    budget.spend(row);
    return true;
  });
  if (totalRows === 0) throw noTextError(name);
  const builder = new DocumentBuilder().startSegment('sheet', 1, name);
  budget.appendTable(builder, rows, totalRows, name);
  builder.append('\n');
  if (encoding !== 'utf-8') builder.addNote(`decoded from ${encoding}`);
  return builder.build();
}
