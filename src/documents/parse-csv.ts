/**
 * RFC 4180 CSV parsing (quoted fields, doubled quotes, line breaks inside quotes) with a guessed delimiter.
 * Small and ours because the cap on kept rows must apply while parsing: a 10 MB export is counted, not kept.
 */

export interface ParsedCsv {
  rows: string[][];
  totalRows: number;
}

const candidates = [',', ';', '\t', '|'];

export function parseCsv(text: string, delimiter: string, keep: (rowsKept: number, row: string[]) => boolean): ParsedCsv {
  const rows: string[][] = [];
  let totalRows = 0;
  for (const row of readRecords(text, delimiter)) {
    if (row.length === 1 && row[0] === '') continue;
    totalRows++;
    if (keep(rows.length, row)) rows.push(row);
  }
  return { rows, totalRows };
}

/** The candidate that splits the first records into the most fields, most consistently. */
export function detectDelimiter(text: string): string {
  const sample = text.slice(0, 64 * 1024);
  let best = { delimiter: ',', score: 0 };
  for (const delimiter of candidates) {
    const counts: number[] = [];
    for (const row of readRecords(sample, delimiter)) {
      counts.push(row.length);
      if (counts.length >= 30) break;
    }
    if (counts.length > 1 && sample.length < text.length) counts.pop(); // a cut sample ends mid-record
    const usual = mostCommon(counts);
    const consistent = counts.filter((count) => count === usual).length / Math.max(1, counts.length);
    const score = usual > 1 ? consistent * Math.log2(usual) : 0;
    if (score > best.score) best = { delimiter, score };
  }
  return best.delimiter;
}

function* readRecords(text: string, delimiter: string): Generator<string[]> {
  let field = '';
  let row: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === delimiter) {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      yield row;
      row = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    yield row;
  }
}

function mostCommon(values: number[]): number {
  const tally = new Map<number, number>();
  for (const value of values) tally.set(value, (tally.get(value) ?? 0) + 1);
  return [...tally].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0] ?? 0;
}
