/**
 * Charts: a Vega-Lite spec over a result becomes a PNG with its text drawn in the packaged font; bad specs get a
 * sentence; a spec cannot load data from anywhere but the result.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { ChartError } from '../../src/charts/chart-errors';
import { CHART_FONT_FAMILY, chartFontFiles } from '../../src/charts/chart-font';
import { renderChart } from '../../src/charts/render-chart';
import { PNG_SIGNATURE, regionTotals } from './support/region-totals';

const result = regionTotals([
  ['north', 120],
  ['south', 340],
  ['east', 75],
]);
const barSpec = { mark: 'bar', title: 'Units by region', encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'total', type: 'quantitative' } } };

async function chartError(spec: unknown, data = result): Promise<ChartError> {
  const error = await renderChart(spec, data).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ChartError);
  return error as ChartError;
}

/** Opaque-pixel count of `text` drawn alone with the chart fonts: proves the font files draw glyphs. */
function inkOf(text: string): number {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><text x="4" y="28" font-family="${CHART_FONT_FAMILY}" font-size="20">${text}</text></svg>`;
  const pixels = new Resvg(svg, { font: { loadSystemFonts: false, fontFiles: chartFontFiles(), defaultFontFamily: CHART_FONT_FAMILY } }).render().pixels;
  let ink = 0;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) ink++;
  return ink;
}

describe('renderChart', () => {
  it('draws a bar chart as a PNG with the result as data', async () => {
    const chart = await renderChart(barSpec, result);
    expect([...chart.png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(chart.png.byteLength).toBeGreaterThan(5_000);
    expect(chart.width).toBeGreaterThan(600);
    // The SVG carries the labels as text: the result's rows were the data.
    for (const label of ['Units by region', 'north', 'south', 'east']) expect(chart.svg).toContain(label);
  });

  it('draws text with the packaged font (no system fonts are loaded)', () => {
    expect(inkOf('Revenue 2024')).toBeGreaterThan(100);
    expect(inkOf('')).toBe(0);
  });

  it('accepts the spec as JSON text', async () => {
    const chart = await renderChart(JSON.stringify({ ...barSpec, mark: 'line' }), result);
    expect([...chart.png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  });

  it('answers a bad spec with a sentence naming the problem and the fields', async () => {
    expect((await chartError('{not json')).message).toMatch(/^The spec is not valid JSON: /);
    expect((await chartError({ encoding: {} })).message).toBe(
      'The spec needs a "mark" (or "layer"/"facet"/"concat"). The result\'s fields are "region" (VARCHAR), "total" (BIGINT).',
    );
    expect((await chartError({ mark: 'pyramid' })).message).toMatch(/^Unknown mark "pyramid"; use one of arc, area, bar/);
    const missing = await chartError({ mark: 'bar', encoding: { x: { field: 'regoin', type: 'nominal' } } });
    expect(missing.code).toBe('chart_spec_invalid');
    expect(missing.message).toBe('The encoding names "regoin", not a field of the result. The result\'s fields are "region" (VARCHAR), "total" (BIGINT).');
  });

  it('refuses more rows than a chart can show', async () => {
    const many = regionTotals(Array.from({ length: 5_001 }, (_, i): [string, number] => [`r${i}`, i]));
    expect((await chartError(barSpec, many)).message).toMatch(/^The result has 5,001 rows; a chart draws at most 5,000\./);
  });

  it('never loads data from a URL or file named in the spec', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'threadwise-chart-'));
    try {
      const canary = path.join(dir, 'canary.csv');
      await writeFile(canary, 'region,total\nSECRET-REGION-42,999\n');
      const chart = await renderChart(
        {
          layer: [
            { mark: 'bar', encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'total', type: 'quantitative' } } },
            { data: { url: canary, format: { type: 'csv' } }, mark: 'text', encoding: { x: { field: 'region', type: 'nominal' }, text: { field: 'region' } } },
          ],
        },
        result,
      );
      expect(chart.svg).not.toContain('SECRET-REGION-42');
      expect(chart.svg).toContain('north');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
