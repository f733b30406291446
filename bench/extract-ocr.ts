/**
 * OCR figures. Method: pages of born-digital corpus PDFs (issue-982-example.pdf p. 1, two columns of prose;
 * zen_of_python_corrupted.pdf p. 1, a printout) are rendered to 2000-px-wide images (pdf.js on @napi-rs/canvas), put into an image-only PDF, and read
 * back through the extractor with OCR on, as a scan would be. Accuracy is 1 − (character edit distance ÷ reference
 * length), both texts with whitespace collapsed, against that page's pdftotext text (pdf-parse's when pdftotext is
 * not installed; the note says which). Speed is wall seconds per page through the worker pool; peak RSS is the
 * whole process, workers and Tesseract's WASM included, while the pages are recognised.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createDocumentExtractor } from '../src/documents';
import { corpusDir, hasCorpus } from '../test/support/corpus';
import { pdftotext } from './extract-anchors';
import { idleStall, probeWhile } from './extract-probes';
import { lowerHelperThreadsPriority } from '../src/runtime/thread-priority.mjs';
import type { BenchFigure, BenchSuite } from './figures';

const run = promisify(execFile);
const pages = ['issue-982-example.pdf', 'zen_of_python_corrupted.pdf'];
const renderWidth = 2000; // as extract-ocr-render.ts
const renderScript = fileURLToPath(new URL('./extract-ocr-render.ts', import.meta.url));

export const extractOcrSuite: BenchSuite = {
  name: 'extract-ocr',
  async run() {
    const keys = ['ocr_seconds_per_page', 'ocr_char_accuracy', 'ocr_peak_rss_mb', 'ocr_two_scans_peak_rss_mb'];
    if (!hasCorpus(...pages)) {
      return keys.map((key): BenchFigure => ({ key: `extract.${key}`, value: null, unit: '', note: `no corpus at ${corpusDir}` }));
    }
    const references: string[] = [];
    for (const name of pages) references.push(await referenceText(path.join(corpusDir, name), await readFile(path.join(corpusDir, name))));
    const folder = await mkdtemp(path.join(tmpdir(), 'threadwise-ocr-bench-'));
    let scan: Uint8Array;
    try {
      await run(process.execPath, ['--import', 'tsx', renderScript, path.join(folder, 'scan.pdf'), ...pages], { maxBuffer: 16 * 1024 * 1024 });
      scan = new Uint8Array(await readFile(path.join(folder, 'scan.pdf')));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    // As `npm start` does first (and the load suite): V8's helper threads, which compile Tesseract's WebAssembly and
    // collect the workers' garbage for every isolate, run at background priority, not beside the event loop.
    lowerHelperThreadsPriority();
    const rssBeforeMb = process.memoryUsage.rss() / (1024 * 1024);
    const extractor = createDocumentExtractor({ maxThreads: 2, ocr: { languages: ['eng'], maxPages: pages.length }, timeoutMs: 600_000 });
    try {
      const started = performance.now();
      const probe = await probeWhile(() => extractor.extract({ bytes: scan.slice(), name: 'rendered-scan.pdf' }));
      const seconds = (performance.now() - started) / 1000;
      const document = probe.result;
      const recognised = document.segments.map((segment) => document.text.slice(segment.start, segment.end).replace(/^--- page \d+ ---\n/, ''));
      const accuracies = references.map((reference, i) => charAccuracy(recognised[i] ?? '', reference));
      const source = pdftotext.available ? 'pdftotext' : 'pdf-parse (pdftotext not installed)';
      // Two scans posted together: both workers busy, one recognising while the other waits for the OCR engine.
      // Copies, because the extractor moves (detaches) the bytes it is given.
      const two = await probeWhile(() =>
        Promise.all([0, 1].map((i) => extractor.extract({ bytes: scan.slice(), name: `rendered-scan-${i + 1}.pdf` }))),
      );
      const idleMs = await idleStall(5_000);
      return [
        {
          key: 'extract.ocr_seconds_per_page',
          value: seconds / pages.length,
          unit: 's',
          note: `${pages.length} pages rendered at ${renderWidth} px wide, one document (pages in sequence, engine start included)`,
        },
        {
          key: 'extract.ocr_char_accuracy',
          value: accuracies.reduce((a, b) => a + b, 0) / accuracies.length,
          unit: '',
          note: `mean of ${accuracies.map((a, i) => `${pages[i]} ${a.toFixed(3)}`).join(', ')}; reference: ${source}`,
        },
        { key: 'extract.ocr_peak_rss_mb', value: probe.peakRssMb, unit: 'MB', target: '< 500', note: `${probe.peakMethod}; whole process while one scan is recognised; before the pool ${rssBeforeMb.toFixed(0)} MB` },
        {
          key: 'extract.ocr_two_scans_peak_rss_mb',
          value: two.peakRssMb,
          unit: 'MB',
          target: '< 500',
          note: `${two.peakMethod}; whole process while two copies of the scan are extracted at once (2 workers, one OCR engine at a time)`,
        },
        { key: 'extract.ocr_event_loop_max_stall_ms', value: probe.maxStallMs, unit: 'ms', target: '< 50', note: `main thread while OCR runs in the workers; the same loop idle for 5 s: ${idleMs.toFixed(1)} ms; load average ${loadavg()[0]!.toFixed(1)} on this shared machine` },
      ];
    } finally {
      await extractor.close();
    }
  },
};

async function referenceText(file: string, bytes: Buffer): Promise<string> {
  if (pdftotext.available) {
    const { stdout } = await run('pdftotext', ['-q', '-enc', 'UTF-8', '-f', '1', '-l', '1', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  }
  // Loaded only here: pdf.js in this process would count in the memory figure.
  const { PDFParse } = await import('pdf-parse');
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText({ partial: [1], pageJoiner: '' })).text;
  } finally {
    await parser.destroy();
  }
}

/** 1 − Levenshtein distance ÷ reference length, over whitespace-collapsed text; 0 at worst. */
export function charAccuracy(recognised: string, reference: string): number {
  const a = recognised.replace(/\s+/g, ' ').trim();
  const b = reference.replace(/\s+/g, ' ').trim();
  if (b.length === 0) return a.length === 0 ? 1 : 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return Math.max(0, 1 - previous[b.length]! / b.length);
}
