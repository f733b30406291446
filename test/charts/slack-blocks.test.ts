/** Results as Slack tables (table block or aligned code block) and as Slack's chart block where they fit. */
import { describe, expect, it } from 'vitest';
import { toChartBlock } from '../../src/charts/slack-chart-block';
import { fitsTableBlock, toCodeBlockTable, toTableBlock } from '../../src/charts/slack-table';

const columns = [
  { name: 'region', type: 'VARCHAR' },
  { name: 'total', type: 'BIGINT' },
];
const rows = [
  ['north', 120],
  ['south', 1340],
];

describe('table block', () => {
  it('fits up to 99 rows plus the header and 20 columns', () => {
    expect(fitsTableBlock({ columns, rows })).toBe(true);
    expect(fitsTableBlock({ columns, rows: Array.from({ length: 99 }, () => ['a', 1]) })).toBe(true);
    expect(fitsTableBlock({ columns, rows: Array.from({ length: 100 }, () => ['a', 1]) })).toBe(false);
    const wide = Array.from({ length: 21 }, (_, i) => ({ name: `c${i}`, type: 'INTEGER' }));
    expect(fitsTableBlock({ columns: wide, rows: [] })).toBe(false);
  });

  it('is a header row and raw_text cells, numbers right-aligned', () => {
    expect(toTableBlock({ columns, rows: [...rows, ['east', null]] })).toEqual({
      type: 'table',
      column_settings: [{ align: 'left' }, { align: 'right' }],
      rows: [
        [{ type: 'raw_text', text: 'region' }, { type: 'raw_text', text: 'total' }],
        [{ type: 'raw_text', text: 'north' }, { type: 'raw_text', text: '120' }],
        [{ type: 'raw_text', text: 'south' }, { type: 'raw_text', text: '1340' }],
        [{ type: 'raw_text', text: 'east' }, { type: 'raw_text', text: ' ' }],
      ],
    });
  });
});

describe('code-block table', () => {
  it('aligns columns, numbers to the right, and says how many rows are left out', () => {
    expect(toCodeBlockTable({ columns, rows }, { maxRows: 1, totalRows: 2 })).toBe(
      ['```', 'region  total', '------  -----', 'north     120', '… 1 more rows', '```'].join('\n'),
    );
  });
});

describe('chart block', () => {
  it('is built for a simple bar chart', () => {
    const spec = { mark: 'bar', encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'total', type: 'quantitative' } } };
    expect(toChartBlock(spec, { columns, rows }, 'Totals by region')).toEqual({
      type: 'data_visualization',
      title: 'Totals by region',
      chart: {
        type: 'bar',
        series: [{ name: 'total', data: [{ label: 'north', value: 120 }, { label: 'south', value: 1340 }] }],
        axis_config: { categories: ['north', 'south'], x_label: 'region', y_label: 'total' },
      },
    });
  });

  it('is a pie for an arc with six slices or fewer, and nothing for what does not fit', () => {
    const pie = { mark: 'arc', encoding: { theta: { field: 'total', type: 'quantitative' }, color: { field: 'region', type: 'nominal' } } };
    expect(toChartBlock(pie, { columns, rows }, 'Share')?.chart).toEqual({ type: 'pie', segments: [{ label: 'north', value: 120 }, { label: 'south', value: 1340 }] });
    const seven = Array.from({ length: 7 }, (_, i) => [`r${i}`, i]);
    expect(toChartBlock(pie, { columns, rows: seven }, 'Share')).toBeUndefined();
    expect(toChartBlock({ mark: 'point', encoding: {} }, { columns, rows }, 'x')).toBeUndefined();
    expect(toChartBlock({ mark: 'bar', transform: [], encoding: {} }, { columns, rows }, 'x')).toBeUndefined();
  });
});
