/**
 * `npm run bench [-- --json FILE] [-- --only NAME]`: runs every suite, prints a table, optionally writes the figures
 * as one flat JSON object for outside checks.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { BenchFigure, BenchSuite } from './figures';
import { suites } from './suites';

const { values } = parseArgs({
  options: { json: { type: 'string' }, only: { type: 'string' } },
  allowPositionals: false,
});

const selected: BenchSuite[] = values.only ? suites.filter((s) => s.name === values.only) : suites;
const figures: BenchFigure[] = [];
for (const suite of selected) {
  process.stderr.write(`running ${suite.name}…\n`);
  try {
    figures.push(...(await suite.run()));
  } catch (error) {
    process.stderr.write(`${suite.name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

printTable(figures);
if (values.json) {
  const flat = Object.fromEntries(figures.map((f) => [f.key, f.value]));
  await writeFile(values.json, `${JSON.stringify(flat, null, 2)}\n`);
  process.stderr.write(`figures written to ${values.json}\n`);
}

function printTable(rows: BenchFigure[]): void {
  const header = ['figure', 'value', 'target', 'anchor / note'];
  const body = rows.map((f) => [
    f.key,
    f.value === null ? 'null' : `${formatNumber(f.value)} ${f.unit}`.trim(),
    f.target ?? '',
    [f.anchor, f.note].filter(Boolean).join('; '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of body) console.log(line(row));
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 3 : 1);
}
