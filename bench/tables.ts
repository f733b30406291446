/**
 * Tables figures on a generated 1,000,000-row (~80 MB) CSV: the time to load it into the engine, a GROUP BY's
 * time (median of warm runs), the DuckDB process's peak RSS, the app's longest event-loop stall while both run,
 * and the naive alternative as the anchor: the same GROUP BY by parsing the CSV in JavaScript on the main thread.
 * Then charts: the app's longest event-loop stall while CHART_RUNS charts are drawn through the chart renderer (its
 * worker thread, the first chart starting it), beside the same charts drawn on the main thread as the anchor.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { once } from 'node:events';
import { createTableEngine } from '../src/tables/table-engine';
import { createChartRenderer, type ChartData } from '../src/charts/chart-renderer';
import type { BenchFigure, BenchSuite } from './figures';
import { idleStall } from './extract-probes';

const ROWS = 1_000_000;
const GROUP_BY_RUNS = 5;
const GROUP_BY = 'SELECT region, product, count(*) AS orders, sum(units * price) AS revenue FROM data GROUP BY region, product';
const CHART_RUNS = 10;
const REGIONS = ['north', 'south', 'east', 'west', 'central', 'north-east', 'south-west', 'islands'];

export const tablesSuite: BenchSuite = {
  name: 'tables',
  async run() {
    const dir = await mkdtemp(path.join(tmpdir(), 'threadwise-bench-tables-'));
    const engine = createTableEngine();
    try {
      const file = path.join(dir, 'orders.csv');
      await writeOrdersCsv(file);
      const sizeMb = (await stat(file)).size / 1024 / 1024;

      // The DuckDB process is started first (once per app, at its first query): the stall figure is about loading
      // and querying, not about spawning a process.
      await engine.usage();
      const idleStallMs = await idleStall(2_000);
      const loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      const loadStart = performance.now();
      const loaded = await engine.load({ key: 'bench-orders', kind: 'csv', name: 'orders.csv', path: file });
      const loadMs = performance.now() - loadStart;
      const times: number[] = [];
      let groups = 0;
      for (let i = 0; i < GROUP_BY_RUNS; i++) {
        const start = performance.now();
        const result = await engine.query(loaded.key, GROUP_BY);
        times.push(performance.now() - start);
        groups = result.totalRows;
      }
      loop.disable();
      const usage = await engine.usage();
      const naiveMs = await naiveGroupBy(file);
      const load = `load average ${loadavg()[0]!.toFixed(1)} on this shared machine`;
      const groupByMs = median(times);
      const charts = await chartStalls();
      const chartLoad = `load average ${loadavg()[0]!.toFixed(1)}`;
      return [
        { key: 'tables.load_ms', value: round(loadMs), unit: 'ms', target: '< 5000', note: `${ROWS.toLocaleString('en-US')} rows, ${sizeMb.toFixed(0)} MB CSV` },
        { key: 'tables.group_by_ms', value: round(groupByMs), unit: 'ms', target: '< 300', anchor: `naive JS ${round(naiveMs)} ms`, note: `median of ${GROUP_BY_RUNS} warm runs, ${groups} groups, app-side round trip` },
        { key: 'tables.query_process_peak_rss_mb', value: round(usage.peakRssBytes / 1024 / 1024), unit: 'MB', target: '< 600', note: 'the DuckDB process, getrusage maxrss' },
        { key: 'tables.event_loop_max_stall_ms', value: round(loop.max / 1e6), unit: 'ms', target: '< 50', note: `app process during the load and the GROUP BYs; the same loop idle for 2 s: ${round(idleStallMs)} ms; ${load}` },
        { key: 'tables.naive_js_group_by_ms', value: round(naiveMs), unit: 'ms', note: 'read + split + parse + Map on the main thread (the anchor)' },
        {
          key: 'tables.chart_event_loop_max_stall_ms',
          value: round(charts.workerStallMs),
          unit: 'ms',
          target: '< 50',
          anchor: `on the main thread ${round(charts.mainThreadStallMs)} ms`,
          note: `app process while ${CHART_RUNS} bar charts (40 bars) are drawn by the chart worker, the first (${round(charts.workerFirstStallMs)} ms) starting it; median ${round(charts.workerMedianMs)} ms a chart (${round(charts.mainThreadMedianMs)} ms on the main thread); the same loop idle for 5 s: ${round(charts.idleStallMs)} ms; ${chartLoad}`,
        },
      ] satisfies BenchFigure[];
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

/**
 * The longest event-loop stall while charts are drawn one after another, through the renderer (a worker) and, as
 * the anchor, on this thread (render-chart.ts imported directly, as the app did before the worker).
 */
async function chartStalls() {
  const data: ChartData = {
    columns: [
      { name: 'region', type: 'VARCHAR' },
      { name: 'revenue', type: 'DOUBLE' },
    ],
    rows: Array.from({ length: 40 }, (_, i) => [`region ${i}`, ((i * 7919) % 1000) / 10]),
  };
  const spec = { mark: 'bar', title: 'Revenue by region', encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'revenue', type: 'quantitative' } } };
  const idleStallMs = await idleStall(5_000);
  /**
   * Each chart's longest stall, on a histogram of its own. The histogram ticks for a few ms before the chart starts
   * (its first tick only sets a baseline, so a stall before it would go unrecorded) and after it ends.
   */
  const drawAll = async (draw: () => Promise<unknown>) => {
    const stalls: number[] = [];
    const times: number[] = [];
    for (let i = 0; i < CHART_RUNS; i++) {
      const loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      await new Promise((resolve) => setTimeout(resolve, 10));
      const start = performance.now();
      await draw();
      times.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 5));
      loop.disable();
      stalls.push(loop.max / 1e6);
    }
    return { stallMs: Math.max(...stalls), firstStallMs: stalls[0]!, medianMs: median(times.slice(1)) };
  };
  const renderer = createChartRenderer();
  let worker;
  try {
    worker = await drawAll(() => renderer.render(spec, data));
  } finally {
    await renderer.close();
  }
  const { renderChart } = await import('../src/charts/render-chart');
  await renderChart(spec, data);
  const mainThread = await drawAll(() => renderChart(spec, data));
  return {
    idleStallMs,
    workerStallMs: worker.stallMs,
    workerFirstStallMs: worker.firstStallMs,
    workerMedianMs: worker.medianMs,
    mainThreadStallMs: mainThread.stallMs,
    mainThreadMedianMs: mainThread.medianMs,
  };
}

/** ~80 bytes a row: id, date, region, product, customer, units, price, channel, note. Deterministic. */
async function writeOrdersCsv(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('id,day,region,product,customer,units,price,channel,note\n');
  let batch = '';
  for (let i = 0; i < ROWS; i++) {
    const day = `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;
    const price = (((i * 7919) % 100_000) / 100).toFixed(2);
    batch += `${i},${day},${REGIONS[i % REGIONS.length]},P${(i * 13) % 500},customer-${(i * 31) % 50_000}@example.com,${(i % 17) + 1},${price},${i % 3 === 0 ? 'web' : 'store'},${i % 11 === 0 ? 'returned-damaged' : 'delivered-on-time'}-${i % 97}\n`;
    if (batch.length > 1 << 20) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end(batch);
  await once(out, 'finish');
}

/** The same GROUP BY the way a script without a database would do it. */
async function naiveGroupBy(file: string): Promise<number> {
  const start = performance.now();
  const text = await readFile(file, 'utf8');
  const groups = new Map<string, { orders: number; revenue: number }>();
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line) continue;
    const fields = line.split(',');
    const key = `${fields[2]}\u0000${fields[3]}`;
    const entry = groups.get(key) ?? { orders: 0, revenue: 0 };
    entry.orders++;
    entry.revenue += Number(fields[5]) * Number(fields[6]);
    groups.set(key, entry);
  }
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
