/**
 * The heavy parsing libraries, imported on first use. Two reasons: a worker that only ever reads CSV never pays
 * for jsdom or exceljs, and these imports happen after worker-entry.mjs has switched tsx off again, so Node loads
 * them natively (through tsx, pdf.js alone took seconds to load and source maps slowed every parse).
 */

type Jsdom = typeof import('jsdom');
type Mammoth = typeof import('mammoth');
type ExcelJs = typeof import('exceljs');

let jsdom: Promise<Jsdom> | undefined;
let mammoth: Promise<Mammoth> | undefined;
let exceljs: Promise<ExcelJs> | undefined;

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

/** A CommonJS module imported from ESM: its `module.exports` is the namespace's default export. */
function commonJsExports<T>(namespace: T): T {
  return (namespace as { default?: T }).default ?? namespace;
}
