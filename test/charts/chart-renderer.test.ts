/**
 * The chart renderer draws on a worker thread: the PNG comes back across it, a bad spec's ChartError keeps its code
 * and sentence, a chart that takes too long is stopped with a sentence, and the worker starts again afterwards.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ChartError } from '../../src/charts/chart-errors';
import { createChartRenderer } from '../../src/charts/chart-renderer';
import { PNG_SIGNATURE, regionTotals } from './support/region-totals';

const result = regionTotals([
  ['north', 120],
  ['south', 340],
]);
const barSpec = { mark: 'bar', title: 'Units by region', encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'total', type: 'quantitative' } } };

const renderer = createChartRenderer();
afterAll(() => renderer.close());

describe('the chart renderer (a worker thread)', () => {
  it('draws a chart and hands the PNG back', async () => {
    const chart = await renderer.render(barSpec, result);
    expect([...chart.png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(chart.width).toBeGreaterThan(600);
    expect(chart.svg).toContain('Units by region');
  });

  it("gives a bad spec's ChartError back with its code, sentence and the caller's context", async () => {
    const error = await renderer.render({ mark: 'bar', encoding: { x: { field: 'regoin', type: 'nominal' } } }, result, { context: { resultId: 'F1.q1' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ChartError);
    expect(error).toMatchObject({
      code: 'chart_spec_invalid',
      message: 'The encoding names "regoin", not a field of the result. The result\'s fields are "region" (VARCHAR), "total" (BIGINT).',
      context: { resultId: 'F1.q1' },
    });
  });

  it('stops a chart past its time limit with a sentence, and draws the next one on a fresh worker', async () => {
    const hasty = createChartRenderer({ timeoutMs: 1 });
    try {
      const error = await hasty.render(barSpec, result).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'chart_render_failed', message: expect.stringMatching(/^The chart took longer than 0\.001 s to draw and was stopped;/) });
    } finally {
      await hasty.close();
    }
    expect((await renderer.render(barSpec, result)).png.byteLength).toBeGreaterThan(1_000);
  });

  it('refuses to draw once closed', async () => {
    const closed = createChartRenderer();
    await closed.close();
    await expect(closed.render(barSpec, result)).rejects.toThrow('Charts cannot be drawn now: the app is shutting down.');
  });
});
