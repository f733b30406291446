/**
 * The text of one region cut into small units (a word with the whitespace before it, or a short CJK run), each with
 * its token count and how good a place the end of the unit is to end a chunk. Chunking then works on units and
 * never needs to tokenize a candidate chunk twice.
 */
import { loadEncoding, selectEncoding, type EncodingName } from '../text/tokenizer';

/** Where a chunk may end, best first: paragraph, line, sentence, word; 0 inside a run with no space. */
export const BREAK = { paragraph: 4, line: 3, sentence: 2, word: 1, none: 0 } as const;

export interface TextUnit {
  /** Offsets into the document text, end exclusive. `start` includes the whitespace before the word. */
  start: number;
  end: number;
  tokens: number;
  /** How good a boundary the end of this unit is (see BREAK). */
  breakAfter: number;
}

// A word with its leading whitespace matches how BPE tokenizers pre-split text (" word" is one piece), so the sum of
// unit counts stays within a few percent of the count of the whole text. Long words and CJK runs are capped so a
// page of Chinese without spaces still has places to cut.
const UNIT = /\s*(?:[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]{1,12}[。！？；，、]?|[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]{1,24})|\s+/gu;
const SENTENCE_END = /[.!?;:。！？；]["')\]»”’]?$/u;

export type TokenCounter = (text: string) => number;

// Documents may contain "<|endoftext|>" and the like; as text they are counted, not refused (gpt-tokenizer's default).
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
const modelCounters = new Map<EncodingName, TokenCounter>();

/** Counts tokens the way the given chat model does (o200k for current models, cl100k for older ones). */
export function tokenCounterFor(model = 'gpt-4o'): TokenCounter {
  const name = selectEncoding(model);
  let counter = modelCounters.get(name);
  if (!counter) {
    const encoding = loadEncoding(name);
    counter = (text) => encoding.countTokens(text, AS_PLAIN_TEXT);
    modelCounters.set(name, counter);
  }
  return counter;
}

/**
 * Memoises a token counter. Words recur within a document and across documents, so one cache serves the process;
 * it is cleared when full rather than kept exact, which costs a few recounts and no bookkeeping.
 */
export function cachedCounter(count: TokenCounter): TokenCounter {
  let cache = caches.get(count);
  if (!cache) caches.set(count, (cache = new Map()));
  const memo = cache;
  return (text) => {
    let tokens = memo.get(text);
    if (tokens === undefined) {
      tokens = count(text);
      if (memo.size >= MAX_CACHED_UNITS) memo.clear();
      memo.set(text, tokens);
    }
    return tokens;
  };
}

const MAX_CACHED_UNITS = 200_000;
const caches = new WeakMap<TokenCounter, Map<string, number>>();

export function splitIntoUnits(text: string, start: number, end: number, count: TokenCounter): TextUnit[] {
  const units: TextUnit[] = [];
  const slice = text.slice(start, end);
  for (const match of slice.matchAll(UNIT)) {
    const piece = match[0];
    const unitStart = start + match.index;
    units.push({ start: unitStart, end: unitStart + piece.length, tokens: count(piece), breakAfter: BREAK.none });
  }
  for (let i = 0; i < units.length; i += 1) units[i]!.breakAfter = rateBreak(text, units[i]!, units[i + 1]);
  return units;
}

/** Tokens of units [from, to). */
export function sumTokens(units: TextUnit[], from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to; i += 1) total += units[i]!.tokens;
  return total;
}

function rateBreak(text: string, unit: TextUnit, next: TextUnit | undefined): number {
  if (!next) return BREAK.paragraph;
  const gap = leadingWhitespace(text, next);
  const word = text.slice(unit.start, unit.end);
  if (/\n[^\S\n]*\n/.test(gap)) return BREAK.paragraph;
  if (gap.includes('\n')) return BREAK.line;
  if (SENTENCE_END.test(word) && (gap.length > 0 || /[。！？；]$/u.test(word))) return BREAK.sentence;
  return gap.length > 0 ? BREAK.word : BREAK.none;
}

function leadingWhitespace(text: string, unit: TextUnit): string {
  let i = unit.start;
  while (i < unit.end && /\s/.test(text[i]!)) i += 1;
  return text.slice(unit.start, i);
}
