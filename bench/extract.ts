/**
 * Extraction figures over the shared corpus: PDF and DOCX speed against pdftotext and pandoc (same run), seconds
 * per file type, the main thread's longest event-loop stall and the process's peak RSS while the whole corpus is
 * extracted, and RSS once the idle pool has shrunk. Timings are the best of three (the machine is shared).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDocumentExtractor, type DocumentExtractor } from '../src/files/extract';
import { pandoc, pdftotext, type Anchor } from './extract-anchors';
import { probeWhile } from './extract-probes';
import type { BenchFigure, BenchSuite } from './figures';

const corpusDir = path.resolve(fileURLToPath(new URL('..', import.meta.url)), '../shared/corpus');
const idleTimeoutMs = 3_000;
const rounds = 3;
const typeGroups: Record<string, RegExp> = {
  pdf: /\.pdf$/i,
  docx: /\.docx$/i,
  pptx: /\.pptx$/i,
  xlsx: /\.xlsx$/i,
  csv: /\.csv$/i,
  html: /\.html$/i,
  text: /\.md$/i,
};

export const extractSuite: BenchSuite = {
  name: 'extract',
  async run() {
    if (!existsSync(corpusDir)) {
      const note = `no corpus at ${corpusDir}`;
      return ['pdf_ratio_to_pdftotext', 'docx_ratio_to_pandoc', 'event_loop_max_stall_ms', 'peak_rss_mb'].map(
        (key): BenchFigure => ({ key: `extract.${key}`, value: null, unit: '', note }),
      );
    }
    const names = (await readdir(corpusDir)).filter((name) => name !== 'SOURCES.tsv').sort();
    const rssBeforeMb = rssMb();
    const extractor = createDocumentExtractor({ maxThreads: 2, idleTimeoutMs });
    try {
      const coldStart = await timeSeconds(() => extractAll(extractor, ['pdfplumber-README.md']));
      await extractAll(extractor, names); // warm both workers with every reader's libraries
      const whole = await probeWhile(() => extractAll(extractor, names));
      const figures: BenchFigure[] = [
        { key: 'extract.worker_cold_start_ms', value: coldStart * 1000, unit: 'ms', note: 'first file on a new pool: worker start, tsx, our modules' },
        { key: 'extract.event_loop_max_stall_ms', value: whole.maxStallMs, unit: 'ms', target: '< 50', note: `${names.length} corpus files extracted at once` },
        { key: 'extract.peak_rss_mb', value: whole.peakRssMb, unit: 'MB', target: '< 500', note: `${whole.peakMethod}; RSS before the pool: ${rssBeforeMb.toFixed(0)} MB` },
      ];
      const seconds = new Map<string, number>();
      for (const [type, pattern] of Object.entries(typeGroups)) {
        const group = names.filter((name) => pattern.test(name));
        seconds.set(type, await bestOf(() => timeSeconds(() => extractAll(extractor, group))));
        figures.push({ key: `extract.${type}_seconds`, value: seconds.get(type)!, unit: 's', note: `${group.length} files, 2 worker threads, best of ${rounds}` });
      }
      figures.push(await ratioFigure('extract.pdf_ratio_to_pdftotext', '< 2', seconds.get('pdf')!, pdftotext, paths(names, typeGroups.pdf!)));
      figures.push(await ratioFigure('extract.docx_ratio_to_pandoc', '< 1', seconds.get('docx')!, pandoc, paths(names, typeGroups.docx!)));
      await sleep(idleTimeoutMs + 2_000);
      figures.push({ key: 'extract.rss_after_idle_mb', value: rssMb(), unit: 'MB', note: `${idleTimeoutMs / 1000} s idle timeout + 2 s; before the pool: ${rssBeforeMb.toFixed(0)} MB` });
      return figures;
    } finally {
      await extractor.close();
    }
  },
};

/** Extracts every named file through the pool (two at a time) and counts failures as done: they are results too. */
async function extractAll(extractor: DocumentExtractor, names: string[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const bytes = new Uint8Array(await readFile(path.join(corpusDir, name)));
      await extractor.extract({ bytes, name }).catch(() => undefined);
    }),
  );
}

async function ratioFigure(key: string, target: string, ours: number, anchor: Anchor, files: string[]): Promise<BenchFigure> {
  if (!anchor.available) return { key, value: null, unit: '×', target, note: `${anchor.tool} is not installed, so there is nothing to compare with` };
  const sequential = await bestOf(() => anchor.measure(files));
  const parallel = await bestOf(() => anchor.measure(files, 2));
  return {
    key,
    value: ours / sequential,
    unit: '×',
    target,
    anchor: `${anchor.tool} ${sequential.toFixed(2)} s one file at a time (${parallel.toFixed(2)} s two at a time); ours ${ours.toFixed(2)} s`,
  };
}

async function bestOf(measure: () => Promise<number>): Promise<number> {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) best = Math.min(best, await measure());
  return best;
}

async function timeSeconds(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

function paths(names: string[], pattern: RegExp): string[] {
  return names.filter((name) => pattern.test(name)).map((name) => path.join(corpusDir, name));
}

function rssMb(): number {
  return process.memoryUsage.rss() / (1024 * 1024);
}
