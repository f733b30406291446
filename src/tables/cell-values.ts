/**
 * DuckDB values as plain JavaScript the model, a chart and a CSV can all take. DuckDB's JSON conversion already
 * turns dates into ISO text and BigInts into strings (JSON has no BigInt); here numeric columns get their numbers
 * back wherever a double holds them exactly, so `count(*)` is 150000 and not "150000", while a 20-digit HUGEINT
 * stays text instead of silently losing digits.
 */
import type { CellValue } from './types';

const NUMERIC_TYPE = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|DECIMAL|FLOAT|DOUBLE|BIGNUM)/;
const INTEGER_TYPE = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)/;

/** Converts one row of DuckDB JSON values in place, given the columns' type names. */
export function toCellValues(row: unknown[], types: string[]): CellValue[] {
  return row.map((value, index) => toCellValue(value, types[index] ?? ''));
}

export function toCellValue(value: unknown, type: string): CellValue {
  if (typeof value === 'string' && NUMERIC_TYPE.test(type)) return numberIfExact(value, INTEGER_TYPE.test(type));
  return value as CellValue;
}

/** "150000" → 150000; "12345678901234567890" stays text (a double would round it); "1.25" → 1.25. */
function numberIfExact(text: string, integer: boolean): CellValue {
  const number = Number(text);
  if (!Number.isFinite(number)) return text;
  if (integer) return Number.isSafeInteger(number) ? number : text;
  // A DECIMAL with more significant digits than a double keeps (about 15) stays text; money sums fit easily.
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').length;
  return digits <= 15 ? number : text;
}

/** A cell as one line of text, for aligned tables, table blocks and CSV: nested values as JSON, null empty. */
export function cellText(value: CellValue): string {
  if (value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
