/**
 * The worker side of chart-renderer.ts: draws one chart and answers with a ChartOutcome. A ChartError becomes its
 * code and sentence (the renderer throws it again on the app's side); anything else is a failed render.
 */
import { messageOf } from '../core/errors';
import { ChartError } from './chart-errors';
import type { ChartOutcome, ChartTask } from './chart-renderer';
import { renderChart } from './render-chart';

export async function runChartTask(task: ChartTask): Promise<ChartOutcome> {
  try {
    return { ok: true, chart: await renderChart(task.spec, task.data, { scale: task.scale }) };
  } catch (error) {
    if (error instanceof ChartError) return { ok: false, code: error.code, message: error.message };
    return { ok: false, code: 'chart_render_failed', message: `The chart could not be drawn: ${messageOf(error)}.` };
  }
}
