/**
 * What a run posted into its thread, as the console shows it again: each make_chart chart as its image, each
 * attach_file file as a download. Nothing is kept for the console: a chart is drawn again from the spec the run
 * recorded over the result it named, and a file is made again from the result (CSV or XLSX, as it was attached) or
 * read from the thread's stored text, so what the console serves is exactly what retention still keeps.
 *
 * What may be served is decided from the run's own recorded step: the step must belong to the run in the URL, be
 * a make_chart or attach_file call that succeeded, and its file id is looked up in that run's thread only. No id
 * typed into a URL reaches another run's thread or a file the run did not post.
 */
import { chartFileName, chartTitle, specObjectOf } from '../charts/chart-title';
import type { ChartRenderer } from '../charts/chart-renderer';
import { createBoundedCache } from '../core/bounded-cache';
import { getDocumentForFile } from '../files/file-store';
import { readStoredResult } from '../files/result-files';
import { readRunStep, type RunDetail } from '../store/console-queries';
import type { Database } from '../store/database';
import { resultToCsv } from '../tables/result-csv';
import { RESULT_MIME_TYPES, resultFileName } from '../tables/result-store';
import type { CellValue, TableColumn } from '../tables/types';

type Step = RunDetail['steps'][number];

/** How the console makes a run's outputs again: the process's chart renderer, and the engine's workbook writer. */
export interface ConsoleOutputs {
  charts: Pick<ChartRenderer, 'render'>;
  writeXlsx(result: { columns: TableColumn[]; rows: CellValue[][] }, sheetName: string): Promise<Uint8Array>;
}

/** One thing a run posted, as its page lists it. */
export interface PostedItem {
  stepId: number;
  /** A chart (shown as its image), a table (Slack's table block: nothing to download), or an attached file. */
  kind: 'chart' | 'table' | 'file';
  /** The thread file it was made from ("F1.q1", "F1.txt"). */
  fileId: string;
  /** The chart's title, or the file's name. */
  title: string;
  /** The name it downloads as ("sales.q1.chart.png", "sales.q1.xlsx"); undefined when it stays in Slack only. */
  downloadName?: string;
}

export interface ServedOutput {
  name: string;
  mimeType: string;
  bytes: Uint8Array;
  /** Shown in the page (the chart's image) rather than downloaded. */
  inline: boolean;
}

/** Why nothing is served, as a sentence for the operator: no such output (404), or no longer kept (410). */
export interface OutputRefusal {
  status: 404 | 410;
  sentence: string;
}

/** The run's successful make_chart and attach_file calls, in the order they ran. */
export function postedItems(detail: Pick<RunDetail, 'steps' | 'fileNames'>): PostedItem[] {
  return detail.steps.filter(isPosting).map((step) => {
    const fileId = fileIdOf(step);
    const fileName = detail.fileNames.get(fileId) ?? fileId;
    if (step.name === 'make_chart') {
      const spec = specObjectOf(argumentsOf(step).spec);
      if (spec?.mark === 'table') return { stepId: step.id, kind: 'table', fileId, title: chartTitle(spec, fileName) };
      return { stepId: step.id, kind: 'chart', fileId, title: chartTitle(spec, fileName), downloadName: chartFileName(fileName) };
    }
    const stored = isStoredInThread(fileId);
    return {
      stepId: step.id,
      kind: 'file',
      fileId,
      title: fileName,
      downloadName: stored ? (isResultId(fileId) ? resultFileName(fileName, formatOf(step)) : fileName) : undefined,
    };
  });
}

/** How long a drawn chart is kept for the next view of the page (a chart costs ~100 ms of a worker to draw again). */
const CHART_CACHE = { maxEntries: 32, ttlMs: 10 * 60_000 };

export function createRunOutputs(db: Database, outputs: ConsoleOutputs, now: () => number) {
  const charts = createBoundedCache<number, Promise<Uint8Array>>({ ...CHART_CACHE, now });

  /** The bytes of what step `stepId` of run `runId` posted, made again; or why there are none. */
  async function serve(runId: number, stepId: number): Promise<ServedOutput | OutputRefusal> {
    const notPosted: OutputRefusal = { status: 404, sentence: `Run #${runId} posted nothing under the number ${stepId}.` };
    const row = await readRunStep(db, runId, stepId);
    if (!row || !isPosting(row.step)) return notPosted;
    const step = row.step;
    const fileId = fileIdOf(step);
    const item = postedItems({ steps: [step], fileNames: new Map() })[0]!;
    if (item.kind === 'table') return { status: 404, sentence: `Run #${runId} posted ${fileId} as a table in Slack; there is no image or file of it.` };

    if (isResultId(fileId)) {
      const result = await readStoredResult(db, row.threadId, fileId);
      if (!result) return { status: 410, sentence: `${fileId} is no longer kept (retention removed it, or its thread's source file was deleted).` };
      if (item.kind === 'chart') {
        const cached = charts.get(step.id);
        const drawing = cached ?? outputs.charts.render(argumentsOf(step).spec, result, { context: { runId, stepId } }).then((chart) => chart.png);
        if (!cached) {
          charts.set(step.id, drawing);
          drawing.catch(() => charts.delete(step.id));
        }
        return { name: chartFileName(result.name), mimeType: 'image/png', bytes: await drawing, inline: true };
      }
      const format = formatOf(step);
      const name = resultFileName(result.name, format);
      const bytes = format === 'xlsx' ? await outputs.writeXlsx(result, name.replace(/\.xlsx$/, '')) : new TextEncoder().encode(resultToCsv(result));
      return { name, mimeType: RESULT_MIME_TYPES[format], bytes, inline: false };
    }
    if (item.kind === 'file' && isStoredInThread(fileId)) {
      const stored = await getDocumentForFile(db, row.threadId, fileId);
      if (!stored) return { status: 410, sentence: `${fileId} is no longer kept (retention removed its text).` };
      return { name: row.fileName ?? `${fileId}.txt`, mimeType: 'text/plain; charset=utf-8', bytes: new TextEncoder().encode(stored.document.text), inline: false };
    }
    return { status: 404, sentence: `${fileId} is a file of the thread in Slack; the console keeps no copy of it. Open the thread in Slack to download it.` };
  }

  return { serve };
}

export function isRefusal(outcome: ServedOutput | OutputRefusal): outcome is OutputRefusal {
  return 'status' in outcome;
}

const POSTING_TOOLS = new Set(['make_chart', 'attach_file']);
const isPosting = (step: Pick<Step, 'kind' | 'name' | 'error'>) => step.kind === 'tool' && POSTING_TOOLS.has(step.name) && !step.error;
const argumentsOf = (step: Pick<Step, 'arguments'>) => (step.arguments ?? {}) as { id?: unknown; spec?: unknown; format?: unknown };
const fileIdOf = (step: Pick<Step, 'arguments'>) => String(argumentsOf(step).id ?? '').trim();
const formatOf = (step: Pick<Step, 'arguments'>): 'csv' | 'xlsx' => (argumentsOf(step).format === 'xlsx' ? 'xlsx' : 'csv');
/** "F1.q1": a query result, kept as the thread's text. */
const isResultId = (fileId: string) => /\.q\d+$/i.test(fileId);
/** "F1.q1", "F1.txt": a virtual file whose text the database keeps; "F1" is Slack's file, which it does not. */
const isStoredInThread = (fileId: string) => fileId.includes('.');
