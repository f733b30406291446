/**
 * Charts are drawn on a worker thread of their own, never on the app's event loop: vega's layout and resvg's
 * rasterisation took ~100 ms of main-thread time per chart (far more on a busy machine), long enough to delay
 * Slack's acknowledgements (bench: tables.chart_event_loop_max_stall_ms). The worker and the libraries it loads
 * (vega, vega-lite, resvg: ~400 ms to import) start with the first chart, so a process that never draws one never
 * loads them; the thread ends after a while without charts and the next one starts it again.
 */
import { Piscina } from 'piscina';
import type { CellValue, TableColumn } from '../tables/types';
import { ChartError, type ChartErrorCode } from './chart-errors';

export interface RenderedChart {
  png: Uint8Array;
  svg: string;
  /** Pixel size of the PNG (the SVG's size times `scale`). */
  width: number;
  height: number;
}

export interface ChartData {
  columns: TableColumn[];
  rows: CellValue[][];
}

export interface ChartOptions {
  /** Pixels per SVG unit (2: sharp on high-density screens). */
  scale?: number;
  /** Said in the error's context (which result, which run). */
  context?: Record<string, unknown>;
}

/** One chart to draw, as it crosses to the worker (structured clone). */
export interface ChartTask {
  spec: unknown;
  data: ChartData;
  scale?: number;
}

/** The worker's answer: the chart, or the sentence of a ChartError (a class does not survive the crossing). */
export type ChartOutcome = { ok: true; chart: RenderedChart } | { ok: false; code: ChartErrorCode; message: string };

export interface ChartRenderer {
  /** Draws a Vega-Lite spec over a result's rows as a PNG; a bad spec rejects with a ChartError saying why. */
  render(spec: unknown, data: ChartData, options?: ChartOptions): Promise<RenderedChart>;
  /** Ends the worker (waiting for a chart being drawn). */
  close(): Promise<void>;
}

export interface ChartRendererOptions {
  /** A chart taking longer than this is stopped (the worker is ended) with a sentence. Default 20 s. */
  timeoutMs?: number;
  /** The worker ends after this long without a chart. Default 2 minutes. */
  idleTimeoutMs?: number;
}

const workerEntry = new URL('./chart-worker.mjs', import.meta.url).href;

export function createChartRenderer(options: ChartRendererOptions = {}): ChartRenderer {
  const timeoutMs = options.timeoutMs ?? 20_000;
  let pool: Piscina<ChartTask, ChartOutcome> | undefined;
  let closed = false;

  const poolOf = () => {
    pool ??= new Piscina<ChartTask, ChartOutcome>({
      filename: workerEntry,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: options.idleTimeoutMs ?? 120_000,
      // vega's scenegraph for 5,000 marks stays well under this; a runaway spec fails instead of swelling the app.
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 8 },
      // The entry registers tsx itself (as the document workers do); the parent's flags are not the worker's.
      execArgv: [],
    });
    // A worker that dies with no chart on it: nothing waits for it, and an unheard 'error' would end the process.
    pool.on('error', () => {});
    return pool;
  };

  return {
    async render(spec, data, renderOptions = {}) {
      const context = renderOptions.context ?? {};
      if (closed) throw new ChartError('chart_render_failed', 'Charts cannot be drawn now: the app is shutting down.', { context });
      let outcome: ChartOutcome;
      try {
        outcome = await poolOf().run({ spec, data, scale: renderOptions.scale }, { signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        const timedOut = (error as { name?: string }).name === 'AbortError';
        throw new ChartError(
          'chart_render_failed',
          timedOut
            ? `The chart took longer than ${timeoutMs / 1000} s to draw and was stopped; chart fewer rows (aggregate with query_table first) or a simpler spec.`
            : `The chart could not be drawn: ${(error as { message?: string }).message ?? String(error)}.`,
          { cause: error, context },
        );
      }
      if (!outcome.ok) throw new ChartError(outcome.code, outcome.message, { context });
      return outcome.chart;
    },
    async close() {
      closed = true;
      await pool?.destroy();
    },
  };
}
