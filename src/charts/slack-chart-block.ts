/**
 * Slack's own chart: the data visualization block (announced 2026-06-16; docs.slack.dev, "data visualization
 * block"). Its limits as documented: `title` ≤ 50 characters; a `pie` chart has 1–6 `segments` ({label, value});
 * `bar`, `line` and `area` charts have 1–6 `series` ({name, data: [{label, value}]}) over `axis_config.categories`;
 * a message holds at most two such blocks. @slack/types 3.2 has no type for it yet, so the block is built as plain
 * JSON here. The documentation we checked gives no cap on categories; we keep to 50 so a label axis stays legible,
 * and anything else (more series, non-numeric values, other marks) is drawn as a PNG instead.
 */
import type { CellValue, TableColumn } from '../tables/types';

const CHART_BLOCK_MAX_TITLE = 50;
const CHART_BLOCK_MAX_SERIES = 6;
const CHART_BLOCK_MAX_SEGMENTS = 6;
/** Our own cap (not Slack's documented one): a category axis past this is unreadable. */
const CHART_BLOCK_MAX_CATEGORIES = 50;

export interface DataVisualizationBlock {
  type: 'data_visualization';
  title: string;
  chart:
    | { type: 'pie'; segments: Array<{ label: string; value: number }> }
    | {
        type: 'bar' | 'line' | 'area';
        series: Array<{ name: string; data: Array<{ label: string; value: number }> }>;
        axis_config: { categories: string[]; x_label?: string; y_label?: string };
      };
}

const MARK_TO_CHART: Record<string, 'bar' | 'line' | 'area' | 'pie'> = { bar: 'bar', line: 'line', area: 'area', arc: 'pie' };

/**
 * The chart block for a simple Vega-Lite spec over a result, or undefined when it does not fit: a bar, line or
 * area mark with a category field on x and one to six numeric fields (or a color field splitting one into ≤ 6
 * series), or an arc (pie) with ≤ 6 slices; every value a number.
 */
export function toChartBlock(spec: Record<string, unknown>, result: { columns: TableColumn[]; rows: CellValue[][] }, title: string): DataVisualizationBlock | undefined {
  const markName = typeof spec.mark === 'string' ? spec.mark : (spec.mark as { type?: unknown } | undefined)?.type;
  const chartType = typeof markName === 'string' ? MARK_TO_CHART[markName] : undefined;
  const encoding = spec.encoding as Record<string, { field?: unknown; aggregate?: unknown } | undefined> | undefined;
  if (!chartType || !encoding || 'transform' in spec || 'layer' in spec) return undefined;
  const index = (field: unknown) => (typeof field === 'string' ? result.columns.findIndex((column) => column.name === field) : -1);
  const numberAt = (row: CellValue[], i: number) => (typeof row[i] === 'number' ? (row[i] as number) : undefined);
  const clippedTitle = [...title].slice(0, CHART_BLOCK_MAX_TITLE).join('');

  if (chartType === 'pie') {
    const label = index(encoding.color?.field);
    const value = index(encoding.theta?.field);
    if (label < 0 || value < 0 || result.rows.length < 1 || result.rows.length > CHART_BLOCK_MAX_SEGMENTS) return undefined;
    const segments = result.rows.map((row) => ({ label: String(row[label] ?? ''), value: numberAt(row, value) }));
    if (segments.some((segment) => segment.value === undefined)) return undefined;
    return { type: 'data_visualization', title: clippedTitle, chart: { type: 'pie', segments: segments as Array<{ label: string; value: number }> } };
  }

  const x = index(encoding.x?.field);
  const y = index(encoding.y?.field);
  const color = index(encoding.color?.field);
  if (x < 0 || y < 0 || encoding.x?.aggregate || encoding.y?.aggregate) return undefined;
  const categories = [...new Set(result.rows.map((row) => String(row[x] ?? '')))];
  if (categories.length === 0 || categories.length > CHART_BLOCK_MAX_CATEGORIES) return undefined;
  const seriesNames = color >= 0 ? [...new Set(result.rows.map((row) => String(row[color] ?? '')))] : [result.columns[y]!.name];
  if (seriesNames.length > CHART_BLOCK_MAX_SERIES) return undefined;
  const series = seriesNames.map((name) => ({ name, data: [] as Array<{ label: string; value: number }> }));
  for (const row of result.rows) {
    const value = numberAt(row, y);
    if (value === undefined) return undefined;
    const target = color >= 0 ? series[seriesNames.indexOf(String(row[color] ?? ''))]! : series[0]!;
    target.data.push({ label: String(row[x] ?? ''), value });
  }
  return {
    type: 'data_visualization',
    title: clippedTitle,
    chart: { type: chartType, series, axis_config: { categories, x_label: result.columns[x]!.name, y_label: result.columns[y]!.name } },
  };
}
