/**
 * The file piscina loads in the chart worker (chart-renderer.ts). Plain JavaScript that registers tsx to load our
 * TypeScript, as the document workers do (a worker inherits no loader from the app, and under vitest there is none);
 * vega, vega-lite and resvg load here, never on the app's main thread.
 */
import { register } from 'tsx/esm/api';
import { DATABASE_NICENESS, lowerThreadPriority } from '../runtime/thread-priority.mjs';

// A chart is waited on by an answer but never by Slack's acknowledgement: the same step down as the database.
lowerThreadPriority(DATABASE_NICENESS);

const unregister = register();
// Loading starts at once, so the first chart waits for it only once; a failure is reported by each chart.
const loading = import('./chart-task.ts').finally(() => unregister());
loading.catch(() => {});

export default async function drawChart(task) {
  let runChartTask;
  try {
    ({ runChartTask } = await loading);
  } catch (error) {
    return { ok: false, code: 'chart_render_failed', message: `The chart library failed to load (${error?.message ?? error}).` };
  }
  return runChartTask(task);
}
