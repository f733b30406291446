/**
 * Tabular files built in the test, with their answers computed while they are built: a 150,000-row sales CSV,
 * a TSV, a JSON array, a two-sheet workbook (one sheet name with spaces) and a Parquet file written by DuckDB.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import ExcelJS from 'exceljs';
import type { TableKind, TableSource } from '../../../src/tables/types';

export const REGIONS = ['north', 'south', 'east', 'west', 'central'] as const;

export interface SalesCsv {
  bytes: Uint8Array;
  rows: number;
  /** Per region: row count and sum of units (integers, so sums are exact). */
  byRegion: Map<string, { count: number; units: number }>;
  /** The five products with the most units, most first (ties broken by name). */
  topProducts: Array<{ product: string; units: number }>;
}

/** 150,000 rows of region, product, units, day: deterministic, so every aggregate is known exactly. */
export function buildSalesCsv(rows = 150_000): SalesCsv {
  const lines = ['region,product,units,day'];
  const byRegion = new Map<string, { count: number; units: number }>(REGIONS.map((r) => [r, { count: 0, units: 0 }]));
  const byProduct = new Map<string, number>();
  for (let i = 0; i < rows; i++) {
    const region = REGIONS[(i * 7) % REGIONS.length]!;
    const product = `P${String((i * 13) % 40).padStart(2, '0')}`;
    const units = ((i * 31) % 97) + (i % 40 === 3 ? 50 : 0);
    const day = `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;
    lines.push(`${region},${product},${units},${day}`);
    const entry = byRegion.get(region)!;
    entry.count++;
    entry.units += units;
    byProduct.set(product, (byProduct.get(product) ?? 0) + units);
  }
  const topProducts = [...byProduct.entries()]
    .map(([product, units]) => ({ product, units }))
    .sort((a, b) => b.units - a.units || a.product.localeCompare(b.product))
    .slice(0, 5);
  return { bytes: new TextEncoder().encode(`${lines.join('\n')}\n`), rows, byRegion, topProducts };
}

export function tsvBytes(): Uint8Array {
  return new TextEncoder().encode('team\tmember\tscore\nred\tAda\t10\nred\tBob\t7\nblue\tCy\t12\nblue\tDee\t3\nblue\tEd\t5\n');
}

export function jsonArrayBytes(): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify([
      { city: 'Lyon', temp: 18.5, sunny: true },
      { city: 'Oslo', temp: 4, sunny: false },
      { city: 'Rome', temp: 24, sunny: true },
    ]),
  );
}

/** Two sheets: "Q3 Sales" (with spaces) and "Targets"; dates and numbers as typed cells. */
export async function workbookBytes(): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const sales = workbook.addWorksheet('Q3 Sales');
  sales.addRow(['Region', 'Month', 'Revenue']);
  const revenue: Array<[string, Date, number]> = [
    ['north', new Date(Date.UTC(2024, 6, 1)), 1200],
    ['north', new Date(Date.UTC(2024, 7, 1)), 1500],
    ['south', new Date(Date.UTC(2024, 6, 1)), 900],
    ['south', new Date(Date.UTC(2024, 8, 1)), 2100.5],
  ];
  for (const row of revenue) sales.addRow(row);
  const targets = workbook.addWorksheet('Targets');
  targets.addRow(['Region', 'Target']);
  targets.addRow(['north', 2500]);
  targets.addRow(['south', 3500]);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

/** A Parquet file written by DuckDB itself (1,000 rows: id, bucket = id % 10, value = id * 2). */
export async function parquetBytes(): Promise<Uint8Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'threadwise-parquet-'));
  try {
    const file = path.join(dir, 'numbers.parquet');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run(`COPY (SELECT range AS id, range % 10 AS bucket, range * 2 AS value FROM range(1000)) TO '${file}' (FORMAT parquet)`);
    connection.closeSync();
    instance.closeSync();
    return new Uint8Array(await readFile(file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A TableSource as the file store would give it: the content hash as key. */
export function source(name: string, kind: TableKind, bytes: Uint8Array): TableSource {
  return { key: createHash('sha256').update(bytes).digest('hex'), kind, name, bytes };
}
