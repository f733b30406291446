/**
 * Loads pdf-parse (pdf.js underneath) once per worker thread, tuned for text extraction only.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

type PdfParseModule = typeof import('pdf-parse');

// pdfjs-dist is pdf-parse's dependency, so it is resolved from pdf-parse's own location: that finds the copy
// pdf-parse really uses even if npm nests it.
const requireFromPdfParse = createRequire(import.meta.resolve('pdf-parse'));
const pdfjsRoot = dirname(requireFromPdfParse.resolve('pdfjs-dist/package.json'));

/** Without these, CJK PDFs whose fonts are not embedded come out with zero CJK characters and no error. */
export const cMapUrl = join(pdfjsRoot, 'cmaps') + '/';

let loading: Promise<PdfParseModule> | undefined;

export function loadPdfParse(): Promise<PdfParseModule> {
  loading ??= load();
  return loading;
}

async function load(): Promise<PdfParseModule> {
  const nativePush = Array.prototype.push;
  const pdfParse = await import('pdf-parse');
  // pdf.js's "fake worker" (the only kind in Node) otherwise imports this module lazily on the first document;
  // handing it over now lets the push fix below happen once, after every pdf.js module has run.
  const workerUrl = pathToFileURL(join(pdfjsRoot, 'legacy/build/pdf.worker.mjs')).href;
  (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import(workerUrl);
  // The legacy build's core-js polyfills replace Array.prototype.push with a JS version, for edge cases (lengths
  // past 2^53, frozen lengths) pdf.js never meets; it cost ~15 % of extraction time. This is a worker thread of
  // our own, so restoring the native method affects nothing else.
  Array.prototype.push = nativePush;
  return pdfParse;
}

/** The constants of pdf.js we read; typed here because pdfjs-dist is pdf-parse's dependency, not ours. */
export interface PdfjsConstants {
  OPS: Record<'save' | 'restore' | 'transform' | 'paintFormXObjectBegin' | 'paintFormXObjectEnd' | 'paintImageXObject', number>;
  ImageKind: Record<'GRAYSCALE_1BPP' | 'RGB_24BPP' | 'RGBA_32BPP', number>;
}

/** pdf.js itself (the copy pdf-parse uses), for its constants (OPS, ImageKind); loaded after pdf-parse's fixes. */
export async function loadPdfjs(): Promise<PdfjsConstants> {
  await loadPdfParse();
  return (await import(pathToFileURL(join(pdfjsRoot, 'legacy/build/pdf.mjs')).href)) as PdfjsConstants;
}
