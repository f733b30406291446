/**
 * An HTML table as a grid of cell text. colspan and rowspan are spread out with empty cells, so every value
 * stays in its column once the grid becomes a markdown table.
 */
import type { MarkupElement } from './markup';

const sections = new Set(['thead', 'tbody', 'tfoot']);

/** Rows of cell text; rows whose cells are all empty are left out. Spans are capped against absurd markup. */
export function readTableGrid(table: MarkupElement, cellText: (cell: MarkupElement) => string): string[][] {
  const grid: string[][] = [];
  // Per column: how many more rows a rowspan from above still covers.
  const spanning: number[] = [];
  for (const row of rowsOf(table)) {
    const cells: string[] = [];
    let column = 0;
    const skipSpannedColumns = () => {
      while (spanning[column]) {
        spanning[column]!--;
        cells.push('');
        column++;
      }
    };
    for (const cell of Array.from(row.children)) {
      if (cell.localName !== 'td' && cell.localName !== 'th') continue;
      skipSpannedColumns();
      const text = cellText(cell);
      const colspan = span(cell, 'colspan', 50);
      const rowspan = span(cell, 'rowspan', 1000);
      for (let i = 0; i < colspan; i++) {
        cells.push(i === 0 ? text : '');
        spanning[column] = rowspan - 1;
        column++;
      }
    }
    skipSpannedColumns();
    if (cells.some((cell) => cell !== '')) grid.push(cells);
  }
  return grid;
}

/** The table's own rows, directly or in thead/tbody/tfoot; rows of nested tables belong to those tables. */
function rowsOf(table: MarkupElement): MarkupElement[] {
  const rows: MarkupElement[] = [];
  for (const child of Array.from(table.children)) {
    if (child.localName === 'tr') rows.push(child);
    else if (sections.has(child.localName)) rows.push(...Array.from(child.children).filter((row) => row.localName === 'tr'));
  }
  return rows;
}

function span(cell: MarkupElement, attribute: string, cap: number): number {
  const value = Number.parseInt(cell.getAttribute(attribute) ?? '1', 10);
  return Number.isFinite(value) ? Math.min(Math.max(value, 1), cap) : 1;
}
