/** What the chart tests draw: a small query result of totals by region, and how a PNG's bytes begin. */
export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A query result with columns region (VARCHAR) and total (BIGINT), one row per [region, total]. */
export function regionTotals(rows: Array<[string, number]>) {
  return {
    columns: [
      { name: 'region', type: 'VARCHAR' },
      { name: 'total', type: 'BIGINT' },
    ],
    rows,
  };
}
