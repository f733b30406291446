/**
 * How much of a spreadsheet or CSV makes it into the text: at most `maxRowsPerSheet` rows per table and
 * `maxTableChars` characters across all tables of one file. What is left out is counted, never silently dropped.
 */
import { formatCount } from '../core/format';
import type { DocumentBuilder } from './document-builder';
import { formatMarkdownTable } from './markdown-table';
import type { ExtractLimits } from './task';

export class TableBudget {
  private charsLeft: number;

  constructor(private readonly limits: ExtractLimits) {
    this.charsLeft = limits.maxTableChars;
  }

  /** Whether one more row may be kept in a table that already keeps `keptRows`. */
  admits(keptRows: number): boolean {
    return keptRows < this.limits.maxRowsPerSheet && this.charsLeft > 0;
  }

  /** Records a kept row against the character budget. */
  spend(cells: string[]): void {
    this.charsLeft -= cells.reduce((sum, cell) => sum + cell.length + 3, 2);
  }

  /** Appends the table and, when rows were left out, a line in the text and a note saying how many and why. */
  appendTable(builder: DocumentBuilder, rows: string[][], totalRows: number, tableName: string): void {
    builder.appendBlock(rows.length ? formatMarkdownTable(trimEmptyColumns(rows)) : '(no cells with values)');
    const leftOut = totalRows - rows.length;
    if (leftOut <= 0) return;
    const why = this.charsLeft <= 0 ? `${formatCount(this.limits.maxTableChars)} characters of tables` : `${formatCount(this.limits.maxRowsPerSheet)} rows per table`;
    builder.appendBlock(`(${formatCount(leftOut)} of ${formatCount(totalRows)} rows left out: the limit is ${why})`);
    builder.addNote(`rows capped: ${formatCount(leftOut)} of ${formatCount(totalRows)} rows of ${tableName} left out`);
  }
}

function trimEmptyColumns(rows: string[][]): string[][] {
  let width = 0;
  for (const row of rows) for (let i = row.length - 1; i >= width; i--) if (row[i]) width = i + 1;
  return rows.map((row) => row.slice(0, width));
}
