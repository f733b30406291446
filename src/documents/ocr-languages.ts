/**
 * Where OCR language data comes from: npm packages (@tesseract.js-data/<code>), never the network. tesseract.js
 * fetches from a CDN when it is not given a folder, which fails on servers without internet, so every language is
 * resolved to a file on disk here and a missing package is reported by name rather than discovered at run time.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { codeOf } from '../core/errors';

const require = createRequire(import.meta.url);

/** The LSTM-only integer models: the smallest and fastest data tesseract.js ships, and what it uses by default. */
const DATA_FOLDER = '4.0.0_best_int';

export interface OcrLanguageCheck {
  /** Codes whose data package is installed. */
  available: string[];
  /** Codes named in OCR_LANGUAGES without an installed package. */
  missing: string[];
}

function dataFileOf(code: string): string | undefined {
  try {
    const folder = dirname(require.resolve(`@tesseract.js-data/${code}/package.json`));
    const file = join(folder, DATA_FOLDER, `${code}.traineddata.gz`);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

export function checkOcrLanguages(codes: readonly string[]): OcrLanguageCheck {
  const available: string[] = [];
  const missing: string[] = [];
  for (const code of codes) (dataFileOf(code) ? available : missing).push(code);
  return { available, missing };
}

/** The start-up sentence for languages without data, naming the variable and the fix; undefined when all are there. */
export function describeMissingOcrLanguages(check: OcrLanguageCheck): string | undefined {
  if (check.missing.length === 0) return undefined;
  const packages = check.missing.map((code) => `@tesseract.js-data/${code}`).join(' ');
  const fallback = check.available.length ? `scans are read in ${check.available.join('+')} only` : 'scans are not read (no OCR)';
  return `OCR_LANGUAGES names ${check.missing.join(', ')} but its data is not installed, so ${fallback}; run "npm install ${packages}" or remove it from OCR_LANGUAGES.`;
}

let folders = new Map<string, string>();

/**
 * One folder holding `<code>.traineddata.gz` for every code, as tesseract.js's `langPath` wants: the package's
 * own folder for one language, or a temporary folder of links to each package's file for several.
 */
export function languageFolderFor(codes: readonly string[]): string {
  const key = codes.join('+');
  const known = folders.get(key);
  if (known) return known;
  const files = codes.map((code) => {
    const file = dataFileOf(code);
    if (!file) throw new Error(`OCR language data for "${code}" is not installed (npm install @tesseract.js-data/${code}).`);
    return file;
  });
  let folder: string;
  if (files.length === 1) folder = dirname(files[0]!);
  else {
    // One fixed folder per user, language set and install, reused by every worker thread and restart: no litter
    // in /tmp, and two checkouts on one machine never relink each other's folder.
    const install = createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 10);
    folder = join(tmpdir(), `threadwise-ocr-${process.getuid?.() ?? 'user'}-${codes.join('+')}-${install}`);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    codes.forEach((code, i) => linkInto(folder, `${code}.traineddata.gz`, files[i]!));
  }
  folders = new Map(folders).set(key, folder);
  return folder;
}

/** A link `name` in `folder` to `target`, made or corrected; a link another thread made meanwhile is fine. */
function linkInto(folder: string, name: string, target: string): void {
  const link = join(folder, name);
  try {
    if (readlinkSync(link) === target) return;
    unlinkSync(link);
  } catch {
    // no link yet
  }
  try {
    symlinkSync(target, link);
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
  }
}

/**
 * OCR settings from OCR_LANGUAGES / OCR_MAX_PAGES for the extractor, saying once at start-up (through `warn`)
 * which languages have no data installed.
 */
export function resolveOcrSettings(
  files: { ocrLanguages: readonly string[]; ocrMaxPages: number },
  warn: (sentence: string) => void,
): { languages: string[]; maxPages: number } {
  if (files.ocrMaxPages <= 0) return { languages: [], maxPages: 0 };
  const check = checkOcrLanguages(files.ocrLanguages);
  const sentence = describeMissingOcrLanguages(check);
  if (sentence) warn(sentence);
  return { languages: check.available, maxPages: check.available.length ? files.ocrMaxPages : 0 };
}
