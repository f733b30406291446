/**
 * A Vega-Lite spec over a result's rows → SVG → PNG, on the server: vega-lite compiles, vega lays out and writes
 * SVG (renderer "none": no canvas, no DOM), resvg rasterises it with the packaged font. The rows always come from
 * the result; the spec cannot fetch data (a loader that refuses every URL and file), so a spec naming
 * `"data": {"url": "/etc/passwd"}` draws nothing from outside. Loaded only in the chart worker (chart-task.ts).
 */
import { messageOf } from '../core/errors';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { cellText } from '../tables/cell-values';
import type { CellValue } from '../tables/types';
import { ChartError } from './chart-errors';
import type { ChartData, ChartOptions, RenderedChart } from './chart-renderer';
import { CHART_FONT_FAMILY, chartFontFiles } from './chart-font';

/** Most rows drawn: more points than this make an unreadable chart and a slow render. */
const MAX_CHART_ROWS = 5_000;

/** Draws the chart on the calling thread: the app calls it through chart-renderer.ts's worker, never directly. */
export async function renderChart(spec: unknown, data: ChartData, options: ChartOptions = {}): Promise<RenderedChart> {
  const context = options.context ?? {};
  const parsed = parseSpec(spec, context);
  checkSpecShape(parsed, data, context);
  const vegaLiteSpec = withResultData(parsed, data, context);
  let vegaSpec: vega.Spec;
  try {
    vegaSpec = compile(vegaLiteSpec).spec;
  } catch (error) {
    throw new ChartError('chart_spec_invalid', `The Vega-Lite spec could not be compiled: ${firstLineOf(error)}. ${fieldHint(data)}`, { cause: error, context });
  }
  let svg: string;
  try {
    const view = new vega.View(vega.parse(vegaSpec), { renderer: 'none', loader: refusingLoader() });
    svg = await view.toSVG();
    view.finalize();
  } catch (error) {
    throw new ChartError('chart_spec_invalid', `The chart could not be drawn from this spec: ${firstLineOf(error)}. ${fieldHint(data)}`, { cause: error, context });
  }
  try {
    const image = new Resvg(svg, {
      background: 'white',
      fitTo: { mode: 'zoom', value: options.scale ?? 2 },
      font: { loadSystemFonts: false, fontFiles: chartFontFiles(), defaultFontFamily: CHART_FONT_FAMILY, sansSerifFamily: CHART_FONT_FAMILY },
    }).render();
    return { png: new Uint8Array(image.asPng()), svg, width: image.width, height: image.height };
  } catch (error) {
    throw new ChartError('chart_render_failed', `The chart's image could not be rendered: ${firstLineOf(error)}.`, { cause: error, context });
  }
}

/** The model's spec as an object: JSON text is accepted too, since models often send the spec as a string. */
function parseSpec(spec: unknown, context: Record<string, unknown>): Record<string, unknown> {
  let value = spec;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (error) {
      throw new ChartError('chart_spec_invalid', `The spec is not valid JSON: ${firstLineOf(error)}. Send a Vega-Lite object such as {"mark": "bar", "encoding": {…}}.`, { cause: error, context });
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new ChartError('chart_spec_invalid', 'The spec must be a Vega-Lite object such as {"mark": "bar", "encoding": {"x": {"field": "region", "type": "nominal"}, "y": {"field": "total", "type": "quantitative"}}}.', { context });
  }
  return value as Record<string, unknown>;
}

const MARKS = new Set(['arc', 'area', 'bar', 'boxplot', 'circle', 'errorband', 'errorbar', 'geoshape', 'image', 'line', 'point', 'rect', 'rule', 'square', 'text', 'tick', 'trail']);
const VIEW_KEYS = ['mark', 'layer', 'facet', 'repeat', 'concat', 'hconcat', 'vconcat'];

/**
 * Mistakes Vega would otherwise answer with an internal error or an empty picture: no mark, an unknown mark, an
 * encoding naming a field the result does not have (checked where no transform could have made the field).
 */
function checkSpecShape(spec: Record<string, unknown>, data: ChartData, context: Record<string, unknown>): void {
  if (!VIEW_KEYS.some((key) => key in spec)) {
    throw new ChartError('chart_spec_invalid', `The spec needs a "mark" (or "layer"/"facet"/"concat"). ${fieldHint(data)}`, { context });
  }
  const mark = typeof spec.mark === 'string' ? spec.mark : (spec.mark as { type?: unknown } | undefined)?.type;
  if ('mark' in spec && (typeof mark !== 'string' || !MARKS.has(mark))) {
    throw new ChartError('chart_spec_invalid', `Unknown mark ${JSON.stringify(mark ?? spec.mark)}; use one of ${[...MARKS].join(', ')}.`, { context });
  }
  if ('transform' in spec || !spec.encoding || typeof spec.encoding !== 'object') return;
  const columns = new Set(data.columns.map((column) => column.name));
  const missing = Object.values(spec.encoding as Record<string, unknown>)
    .flatMap((channel) => (Array.isArray(channel) ? channel : [channel]))
    .map((channel) => (channel && typeof channel === 'object' ? (channel as { field?: unknown }).field : undefined))
    .filter((field): field is string => typeof field === 'string' && !columns.has(field) && !columns.has(field.split('.')[0]!));
  if (missing.length > 0) {
    throw new ChartError('chart_spec_invalid', `The encoding names ${missing.map((f) => JSON.stringify(f)).join(', ')}, not a field of the result. ${fieldHint(data)}`, { context });
  }
}

/**
 * The result's rows as the spec's data (whatever `data` the spec named is replaced), with readable defaults the
 * spec may override: white background, the packaged font, a size that reads well in Slack.
 */
function withResultData(spec: Record<string, unknown>, data: ChartData, context: Record<string, unknown>): TopLevelSpec {
  if (data.rows.length > MAX_CHART_ROWS) {
    throw new ChartError(
      'chart_spec_invalid',
      `The result has ${data.rows.length.toLocaleString('en-US')} rows; a chart draws at most ${MAX_CHART_ROWS.toLocaleString('en-US')}. Aggregate first with query_table (GROUP BY), then chart that result.`,
      { context },
    );
  }
  const values = data.rows.map((row) => Object.fromEntries(data.columns.map((column, index) => [column.name, chartValue(row[index] ?? null)])));
  const config = (spec.config && typeof spec.config === 'object' ? spec.config : {}) as Record<string, unknown>;
  const hasFacets = 'facet' in spec || 'repeat' in spec || 'concat' in spec || 'hconcat' in spec || 'vconcat' in spec;
  return {
    ...(hasFacets ? {} : { width: 640, height: 360 }),
    background: 'white',
    padding: 12,
    ...spec,
    data: { values },
    config: { font: CHART_FONT_FAMILY, ...config },
  } as TopLevelSpec;
}

/** Vega draws numbers, text and booleans; nested values are drawn as their JSON text. */
function chartValue(value: CellValue): string | number | boolean | null {
  return value === null || typeof value !== 'object' ? value : cellText(value);
}

/** Vega's loader, refusing every load: a chart draws only the result's rows it was given. */
function refusingLoader(): ReturnType<typeof vega.loader> {
  const loader = vega.loader();
  const refuse = async (uri: string): Promise<never> => {
    throw new Error(`charts draw only the result's rows; loading ${JSON.stringify(uri)} is refused`);
  };
  loader.load = refuse;
  loader.sanitize = refuse as unknown as typeof loader.sanitize;
  loader.http = refuse as unknown as typeof loader.http;
  loader.file = refuse as unknown as typeof loader.file;
  return loader;
}

function fieldHint(data: ChartData): string {
  return `The result's fields are ${data.columns.map((column) => `${JSON.stringify(column.name)} (${column.type})`).join(', ')}.`;
}

function firstLineOf(error: unknown): string {
  return messageOf(error).split('\n')[0]!.replace(/\.$/, '');
}
