import type { ExtractedDocument } from '../core/thread-file';
import { listRegions, type TextRegion } from './document-regions';
import { createLineLocator } from './line-locator';
import { BREAK, cachedCounter, splitIntoUnits, sumTokens, tokenCounterFor, type TextUnit, type TokenCounter } from './text-units';

/** One passage of a document as it is stored for search. Offsets point into ExtractedDocument.text. */
export interface DocumentChunk {
  ordinal: number;
  text: string;
  /** "p. 37", "§ Results", "slide 4", "lines 120–164". */
  location: string;
  page?: number;
  start: number;
  end: number;
  tokens: number;
  /**
   * Words indexed with the chunk but not part of its text: the column names of the table whose later rows it holds
   * (see tableHeaderOf), so a row is found by what its figures are ("handgun checks in Florida").
   */
  context?: string;
}

export interface ChunkOptions {
  /** What a chunk aims for. A region up to `maxTokens` stays whole; longer ones are cut into even parts. */
  targetTokens?: number;
  maxTokens?: number;
  /** Tokens repeated from the end of the previous chunk of the same region, so a sentence cut in two is found. */
  overlapTokens?: number;
  /** Chat model whose tokenizer sizes the chunks (o200k for current models). */
  model?: string;
  /** Token count of a piece of text; the model's tokenizer by default. */
  countTokens?: TokenCounter;
}

const DEFAULTS = { targetTokens: 400, maxTokens: 512, overlapTokens: 50 };
type Settings = typeof DEFAULTS;

/**
 * Cuts a document into search chunks that follow its structure: never across a page, slide or sheet, preferring to
 * end at a paragraph, then a line, then a sentence. Deterministic, so two replicas indexing the same document at once
 * produce identical rows and the unique (content_hash, ordinal) key can settle the race.
 */
export function chunkDocument(document: ExtractedDocument, options: ChunkOptions = {}): DocumentChunk[] {
  const settings: Settings = {
    targetTokens: options.targetTokens ?? DEFAULTS.targetTokens,
    maxTokens: options.maxTokens ?? DEFAULTS.maxTokens,
    overlapTokens: options.overlapTokens ?? DEFAULTS.overlapTokens,
  };
  const count = cachedCounter(options.countTokens ?? tokenCounterFor(options.model));
  const lineAt = createLineLocator(document.text);
  const chunks: DocumentChunk[] = [];
  for (const region of listRegions(document)) {
    const headerLine = lineAt(region.start) + 1;
    const header = tableHeaderOf(document.text, region);
    for (const [windowStart, windowEnd] of windowsOf(document.text, region)) {
      const units = splitIntoUnits(document.text, windowStart, windowEnd, count);
      const cuts = planCuts(units, settings);
      const split = cuts.length > 1 || windowEnd - windowStart < region.end - region.start;
      for (const [from, to] of cuts) {
        const chunk = makeChunk(document.text, region, units, [from, to], chunks.length);
        if (!chunk) continue;
        if (header && chunk.start >= header.end) chunk.context = header.text;
        // Plain text has no pages or headings; line numbers are what a person can find again.
        if (!chunk.location) chunk.location = describeLines('line', lineAt(chunk.start), lineAt(chunk.end));
        // A sheet cut in parts: its rows (lines after the header and the markdown separator) say which part.
        else if (region.isTable && split) {
          const rows = [lineAt(chunk.start), lineAt(chunk.end)].map((line) => Math.max(1, line - headerLine));
          chunk.location = `${region.location}, ${describeLines('row', rows[0]!, rows[1]!)}`;
        }
        chunks.push(chunk);
      }
    }
  }
  return chunks;
}

/** A line of figures: at least this many numbers ("18,870", "5.37%", "0") with nothing longer than a name beside them. */
const MIN_ROW_NUMBERS = 3;
/** A page is a table when this share of its lines are rows of figures (and there are at least MIN_TABLE_ROWS). */
const MIN_ROW_SHARE = 0.5;
const MIN_TABLE_ROWS = 5;
/** Most of a header carried into each later chunk: column names, not a page of text. */
const MAX_HEADER_CHARS = 400;

/**
 * The header of a region that is a table: a sheet's first line (its markdown header row), or on a page made mostly of
 * rows of figures, the lines above the first such row (a PDF table's column names). A chunk of later rows does not
 * hold it, and without it "Kentucky 264,140 12,155 …" says nothing of permits or handguns.
 */
function tableHeaderOf(text: string, region: TextRegion): { text: string; end: number } | undefined {
  if (region.isTable) {
    // The sheet's title line ("## Sheet: Budget") comes before its header row.
    const row = /^\|.*$/m.exec(text.slice(region.start, Math.min(region.end, region.start + 2_000)));
    if (!row) return undefined;
    const start = region.start + row.index;
    return { text: row[0].slice(0, MAX_HEADER_CHARS), end: start + row[0].length };
  }
  if (region.page === undefined) return undefined;
  let rows = 0;
  let lines = 0;
  let firstRow = -1;
  for (let at = region.start; at < region.end;) {
    const lineEnd = Math.min(region.end, (text.indexOf('\n', at) + 1 || region.end + 1) - 1);
    const line = text.slice(at, lineEnd);
    if (line.trim()) {
      lines += 1;
      if (isRowOfFigures(line)) {
        rows += 1;
        if (firstRow === -1) firstRow = at;
      }
    }
    at = lineEnd + 1;
  }
  if (rows < MIN_TABLE_ROWS || rows < lines * MIN_ROW_SHARE || firstRow <= region.start) return undefined;
  const above = text.slice(Math.max(region.start, firstRow - MAX_HEADER_CHARS), firstRow).trim();
  return above ? { text: above, end: firstRow } : undefined;
}

function isRowOfFigures(line: string): boolean {
  return (line.match(/(?:^|\s)[-+(]?\d[\d,.]*%?\)?(?=\s|$)/g)?.length ?? 0) >= MIN_ROW_NUMBERS;
}

/** Characters cut into units at a time: a 10 MB sheet is one region, and millions of units at once cost hundreds of MB. */
const WINDOW_CHARS = 100_000;

/** A region in pieces of about WINDOW_CHARS, each ending at a line break (where a chunk would end anyway). */
function* windowsOf(text: string, region: TextRegion): Generator<[number, number]> {
  let start = region.start;
  while (region.end - start > WINDOW_CHARS * 1.5) {
    const lineEnd = text.indexOf('\n', start + WINDOW_CHARS);
    if (lineEnd === -1 || lineEnd >= region.end) break;
    yield [start, lineEnd + 1];
    start = lineEnd + 1;
  }
  yield [start, region.end];
}

/** Unit ranges [from, to) of the chunks of one region. */
function planCuts(units: TextUnit[], settings: Settings): Array<[number, number]> {
  const total = sumTokens(units, 0, units.length);
  if (total <= settings.maxTokens) return units.length > 0 ? [[0, units.length]] : [];
  // Even parts, so a region of 530 tokens becomes two of ~290 rather than 400 + a scrap of 130.
  const parts = Math.ceil((total - settings.overlapTokens) / (settings.targetTokens - settings.overlapTokens));
  const aim = Math.min(settings.maxTokens, Math.ceil(total / parts) + settings.overlapTokens);
  const cuts: Array<[number, number]> = [];
  let from = 0;
  while (from < units.length) {
    const to = chooseEnd(units, from, aim, settings.maxTokens);
    cuts.push([from, to]);
    if (to >= units.length) break;
    from = chooseOverlapStart(units, from, to, settings.overlapTokens);
  }
  return cuts;
}

/** The end (exclusive) of a chunk starting at `from`: the best break between 70% of the aim and the maximum. */
function chooseEnd(units: TextUnit[], from: number, aim: number, max: number): number {
  let tokens = 0;
  let best = -1;
  let bestRank = -Infinity;
  for (let i = from; i < units.length; i += 1) {
    tokens += units[i]!.tokens;
    if (tokens > max && i > from) break;
    if (tokens < aim * 0.7) continue;
    // Prefer the strongest break; among equals, the one nearest the aim.
    const rank = units[i]!.breakAfter * 1000 - Math.abs(tokens - aim);
    if (rank > bestRank) {
      best = i;
      bestRank = rank;
    }
  }
  if (tokens <= max) return units.length; // the rest fits
  return best >= 0 ? best + 1 : from + 1;
}

/** Where the next chunk starts: a little before `to`, at a sentence or line break when one is close. */
function chooseOverlapStart(units: TextUnit[], from: number, to: number, overlap: number): number {
  let tokens = 0;
  let best = to;
  for (let i = to - 1; i > from; i -= 1) {
    tokens += units[i]!.tokens;
    if (tokens > overlap * 2) break;
    const breaksBefore = units[i - 1]!.breakAfter;
    if (breaksBefore >= BREAK.sentence && tokens >= overlap / 2) return i;
    if (breaksBefore >= BREAK.word && tokens <= overlap) best = i;
  }
  return best;
}

function makeChunk(
  text: string,
  region: TextRegion,
  units: TextUnit[],
  [from, to]: [number, number],
  ordinal: number,
): DocumentChunk | undefined {
  let start = units[from]!.start;
  let end = units[to - 1]!.end;
  while (start < end && /\s/.test(text[start]!)) start += 1;
  while (end > start && /\s/.test(text[end - 1]!)) end -= 1;
  if (end <= start) return undefined;
  const chunk: DocumentChunk = {
    ordinal,
    text: text.slice(start, end),
    location: region.location,
    start,
    end,
    tokens: sumTokens(units, from, to),
  };
  if (region.page !== undefined) chunk.page = region.page;
  return chunk;
}

function describeLines(unit: 'line' | 'row', first: number, last: number): string {
  return first === last ? `${unit} ${first}` : `${unit}s ${first}–${last}`;
}
