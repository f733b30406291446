/**
 * Rows of cell text to a markdown table. The first row is the header because markdown tables must have one;
 * short rows are padded so every row has the same number of cells.
 */

export function formatMarkdownTable(rows: string[][]): string {
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (rows.length === 0 || width === 0) return '';
  const line = (row: string[]) => {
    const cells = Array.from({ length: width }, (_, i) => escapeCell(row[i] ?? ''));
    return `| ${cells.join(' | ')} |`;
  };
  const [header, ...body] = rows;
  return [line(header!), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}

/** A cell must stay on one line and must not end the cell early. */
function escapeCell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' <br> ').replace(/\|/g, '\\|').trim();
}
