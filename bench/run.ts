/**
 * `npm run bench [-- --json FILE] [-- --only NAME]`: runs every suite, each in a fresh process, prints one table,
 * and optionally writes the figures as one flat JSON object for outside checks.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchFigure } from './figures';
import { suiteLoaders } from './suites';
import { messageOf } from '../src/core/errors';

const { values } = parseArgs({
  options: {
    json: { type: 'string' },
    only: { type: 'string' },
    /** Internal: a suite's child process writes its full figures here for the parent. */
    figures: { type: 'string' },
  },
  allowPositionals: false,
});

const names = values.only ? [values.only] : Object.keys(suiteLoaders);
const unknown = names.filter((name) => !suiteLoaders[name]);
if (unknown.length) {
  process.stderr.write(`unknown suite ${unknown.join(', ')}; the suites are: ${Object.keys(suiteLoaders).join(', ')}\n`);
  process.exit(2);
}

const figures = values.only ? await runHere(values.only) : names.flatMap(runInChild);
if (values.figures) {
  await writeFile(values.figures, JSON.stringify(figures));
} else {
  printTable(figures);
  if (values.json) {
    await writeFile(values.json, `${JSON.stringify(Object.fromEntries(figures.map((f) => [f.key, f.value])), null, 2)}\n`);
    process.stderr.write(`figures written to ${values.json}\n`);
  }
}

async function runHere(name: string): Promise<BenchFigure[]> {
  process.stderr.write(`running ${name}…\n`);
  try {
    return await (await suiteLoaders[name]!()).run();
  } catch (error) {
    process.stderr.write(`${name} failed: ${messageOf(error)}\n`);
    process.exitCode = 1;
    return [];
  }
}

function runInChild(name: string): BenchFigure[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'threadwise-bench-'));
  const out = path.join(dir, 'figures.json');
  try {
    // This process's node flags (`npm run bench` passes those `npm start` runs the bot with: heap sizes, tsx) and
    // its environment (MALLOC_ARENA_MAX): each suite's process is configured as the deployed bot is.
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--only', name, '--figures', out], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (child.status !== 0) process.exitCode = 1;
    return JSON.parse(readFileSync(out, 'utf8')) as BenchFigure[];
  } catch {
    process.stderr.write(`${name} wrote no figures\n`);
    process.exitCode = 1;
    return [];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
