/**
 * An HTML table as a grid of cell text. colspan and rowspan are spread out with empty cells, so every value
 * stays in its column once the grid becomes a markdown table.
 */

/** Rows of cell text; rows whose cells are all empty are left out. Spans are capped against absurd markup. */
export function readTableGrid(table: HTMLTableElement, cellText: (cell: Element) => string): string[][] {
  const grid: string[][] = [];
  // Per column: how many more rows a rowspan from above still covers.
  const spanning: number[] = [];
  for (const row of Array.from(table.rows)) {
    const cells: string[] = [];
    let column = 0;
    const skipSpannedColumns = () => {
      while (spanning[column]) {
        spanning[column]!--;
        cells.push('');
        column++;
      }
    };
    for (const cell of Array.from(row.cells)) {
      skipSpannedColumns();
      const text = cellText(cell);
      const colspan = Math.min(Math.max(cell.colSpan, 1), 50);
      const rowspan = Math.min(Math.max(cell.rowSpan, 1), 1000);
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
