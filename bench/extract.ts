/**
 * Extraction figures over the shared corpus: PDF and DOCX speed against pdftotext and pandoc (same run), seconds
 * per file type, the main thread's longest event-loop stall and the process's peak RSS while the whole corpus is
 * extracted, and RSS once the idle pool has shrunk. Timings are the best of three: the machine is shared.
 */
import { corpusDir } from '../test/support/corpus';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDocumentExtractor, type DocumentExtractor } from '../src/documents';
import { pandoc, pdftotext, type Anchor } from './extract-anchors';
import { probeWhile } from './extract-probes';
import { bestOf, timeInProcess, type Timing } from './extract-timing';
import type { BenchFigure, BenchSuite } from './figures';

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

type Batch = Array<{ name: string; bytes: Uint8Array }>;

export const extractSuite: BenchSuite = {
  name: 'extract',
  async run() {
    if (!existsSync(corpusDir)) {
      const note = `no corpus at ${corpusDir}`;
      return ['pdf_ratio_to_pdftotext', 'pdf_cpu_ratio_to_pdftotext', 'first_pages_ms', 'docx_ratio_to_pandoc', 'event_loop_max_stall_ms', 'peak_rss_mb'].map(
        (key): BenchFigure => ({ key: `extract.${key}`, value: null, unit: '', note }),
      );
    }
    const names = (await readdir(corpusDir)).filter((name) => name !== 'SOURCES.tsv').sort();
    const rssBeforeMb = rssMb();
    const extractor = createDocumentExtractor({ maxThreads: 2, idleTimeoutMs });
    try {
      const readme = await readBatch(['pdfplumber-README.md']);
      const coldStart = await timeInProcess(() => extractAll(extractor, readme));
      await extractAll(extractor, await readBatch(names)); // warms both workers with every reader's libraries
      const batch = await readBatch(names);
      const whole = await probeWhile(() => extractAll(extractor, batch));
      const load = `load average ${loadavg()[0]!.toFixed(1)} on this shared machine`;
      const figures: BenchFigure[] = [
        { key: 'extract.worker_cold_start_ms', value: coldStart.wallSeconds * 1000, unit: 'ms', note: 'first file on a new pool: worker start, tsx, our modules' },
        { key: 'extract.event_loop_max_stall_ms', value: whole.maxStallMs, unit: 'ms', target: '< 50', note: `${names.length} files in memory, all submitted at once; ${load}` },
        { key: 'extract.peak_rss_mb', value: whole.peakRssMb, unit: 'MB', target: '< 500', note: `${whole.peakMethod}; before the pool ${rssBeforeMb.toFixed(0)} MB` },
        // The bench process already holds every suite's modules before the pool starts; this is the pool's share.
        { key: 'extract.peak_rss_added_by_pool_mb', value: whole.peakRssMb - rssBeforeMb, unit: 'MB', note: 'peak minus RSS before the pool started' },
      ];
      figures.push(await firstPages(extractor));
      const timings = new Map<string, Timing>();
      for (const [type, pattern] of Object.entries(typeGroups)) {
        const group = names.filter((name) => pattern.test(name));
        const timing = await bestOf(rounds, async () => {
          const batch = await readBatch(group);
          return timeInProcess(() => extractAll(extractor, batch));
        });
        timings.set(type, timing);
        figures.push({ key: `extract.${type}_seconds`, value: timing.wallSeconds, unit: 's', note: `${group.length} files, 2 worker threads, best of ${rounds}; ${timing.cpuSeconds.toFixed(2)} s CPU` });
      }
      figures.push(...(await compare('pdf', 'pdftotext', '< 2', timings.get('pdf')!, pdftotext, names)));
      figures.push(...(await compare('docx', 'pandoc', '< 1', timings.get('docx')!, pandoc, names)));
      await sleep(idleTimeoutMs + 2_000);
      figures.push({ key: 'extract.rss_after_idle_mb', value: rssMb(), unit: 'MB', note: `${idleTimeoutMs / 1000} s idle timeout + 2 s; before the pool ${rssBeforeMb.toFixed(0)} MB` });
      return figures;
    } finally {
      await extractor.close();
    }
  },
};

/**
 * The files, read before any timing starts and read afresh for every run: the extractor moves the bytes it is
 * given to its workers, and a copy of the corpus held here would count in the RSS figures as if it were ours.
 */
async function readBatch(names: string[]): Promise<Batch> {
  return Promise.all(
    names.map(async (name) => {
      const buffer = await readFile(path.join(corpusDir, name));
      return { name, bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) };
    }),
  );
}

/** Extracts the files through the pool (two at a time). Failures count as done: they are results too. */
async function extractAll(extractor: DocumentExtractor, batch: Batch): Promise<void> {
  await Promise.all(batch.map((input) => extractor.extract(input).catch(() => undefined)));
}

async function compare(type: string, tool: string, target: string, ours: Timing, anchor: Anchor, names: string[]): Promise<BenchFigure[]> {
  const wallKey = `extract.${type}_ratio_to_${tool}`;
  const cpuKey = `extract.${type}_cpu_ratio_to_${tool}`;
  if (!anchor.available) {
    const note = `${tool} is not installed, so there is nothing to compare with`;
    return [{ key: wallKey, value: null, unit: '×', target, note }, { key: cpuKey, value: null, unit: '×', note }];
  }
  const files = names.filter((name) => typeGroups[type]!.test(name)).map((name) => path.join(corpusDir, name));
  const sequential = await bestOf(rounds, () => anchor.measure(files));
  const parallel = await bestOf(rounds, () => anchor.measure(files, 2));
  return [
    {
      key: wallKey,
      value: ours.wallSeconds / sequential.wallSeconds,
      unit: '×',
      target,
      anchor: `${tool} ${sequential.wallSeconds.toFixed(2)} s one file at a time, ${parallel.wallSeconds.toFixed(2)} s two at a time; ours ${ours.wallSeconds.toFixed(2)} s`,
    },
    {
      key: cpuKey,
      value: ours.cpuSeconds / sequential.cpuSeconds,
      unit: '×',
      anchor: `CPU seconds: ${tool} ${sequential.cpuSeconds.toFixed(2)} s, ours ${ours.cpuSeconds.toFixed(2)} s (steadier than wall time on a busy machine)`,
    },
  ];
}

const LONG_PDF = 'GeoTopo-komprimiert.pdf';

/**
 * extract.first_pages_ms: a 117-page PDF submitted to the warm pool until its first pages (the extractor's
 * firstPassChars of text, twice the default PRELOAD_KB) are told on the main thread, best of three; the whole file's time beside it.
 */
async function firstPages(extractor: DocumentExtractor): Promise<BenchFigure> {
  let best = { opening: Infinity, whole: Infinity, cpu: Infinity };
  for (let round = 0; round < rounds; round++) {
    const [input] = await readBatch([LONG_PDF]);
    const cpu = process.cpuUsage();
    const started = performance.now();
    let opening = Infinity;
    let openingCpu = Infinity;
    await extractor.extract({
      ...input!,
      onFirstPages: () => {
        opening = performance.now() - started;
        const used = process.cpuUsage(cpu);
        openingCpu = (used.user + used.system) / 1000;
      },
    });
    const whole = performance.now() - started;
    best = { opening: Math.min(best.opening, opening), whole: Math.min(best.whole, whole), cpu: Math.min(best.cpu, openingCpu) };
  }
  return {
    key: 'extract.first_pages_ms',
    value: Number.isFinite(best.opening) ? best.opening : null,
    unit: 'ms',
    target: '< 500',
    anchor: `the whole file ${best.whole.toFixed(0)} ms`,
    note: `${LONG_PDF} (117 pages) on the warm pool, best of ${rounds}; ${best.cpu.toFixed(0)} ms CPU to the first pages; load average ${loadavg()[0]!.toFixed(1)}`,
  };
}

function rssMb(): number {
  return process.memoryUsage.rss() / (1024 * 1024);
}
