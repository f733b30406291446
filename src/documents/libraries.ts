/**
 * The heavy parsing libraries, imported on first use. Two reasons: a worker that only ever reads CSV never pays
 * for jsdom or exceljs, and these imports happen after worker-entry.mjs has switched tsx off again, so Node loads
 * them natively (through tsx, pdf.js alone took seconds to load and source maps slowed every parse).
 */

type Jsdom = typeof import('jsdom');
type Mammoth = typeof import('mammoth');
type ExcelJs = typeof import('exceljs');
type Canvas = typeof import('@napi-rs/canvas');
type SheetJs = typeof import('xlsx');
type Cfb = typeof import('cfb');
type WordExtractor = typeof import('word-extractor');

let jsdom: Promise<Jsdom> | undefined;
let mammoth: Promise<Mammoth> | undefined;
let exceljs: Promise<ExcelJs> | undefined;
let canvas: Promise<Canvas> | undefined;
let sheetJs: Promise<SheetJs> | undefined;
let cfb: Promise<Cfb> | undefined;
let wordExtractor: Promise<WordExtractor> | undefined;

export function loadJsdom(): Promise<Jsdom> {
  jsdom ??= import('jsdom');
  return jsdom;
}

export function loadMammoth(): Promise<Mammoth> {
  mammoth ??= import('mammoth').then(commonJsExports);
  return mammoth;
}

export function loadExcelJs(): Promise<ExcelJs> {
  exceljs ??= import('exceljs').then(commonJsExports);
  return exceljs;
}

export function loadCanvas(): Promise<Canvas> {
  canvas ??= import('@napi-rs/canvas');
  return canvas;
}

export function loadSheetJs(): Promise<SheetJs> {
  sheetJs ??= import('xlsx').then(commonJsExports);
  return sheetJs;
}

export function loadCfb(): Promise<Cfb> {
  cfb ??= import('cfb').then(commonJsExports);
  return cfb;
}

export function loadWordExtractor(): Promise<WordExtractor> {
  wordExtractor ??= import('word-extractor').then((namespace) => commonJsExports(namespace as unknown as WordExtractor));
  return wordExtractor;
}

/** A CommonJS module imported from ESM: its `module.exports` is the namespace's default export. */
function commonJsExports<T>(namespace: T): T {
  return (namespace as { default?: T }).default ?? namespace;
}
