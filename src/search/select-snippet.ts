import type { QueryTerms } from './query-terms';

export interface Snippet {
  /** The excerpt, with matched words wrapped in «…». */
  text: string;
  /** Offsets of the excerpt inside the passage it was cut from. */
  start: number;
  end: number;
}

const MARK_OPEN = '«';
const MARK_CLOSE = '»';

/**
 * The part of a passage that best shows why it matched: the window of `maxChars` holding the most query words,
 * widened to word boundaries, with those words marked. The database stems words; here a prefix test stands in
 * for stemming ("Räume" matches "raum"), which is close enough for choosing and marking an excerpt.
 */
export function selectSnippet(passage: string, terms: QueryTerms, maxChars: number): Snippet {
  const matches = findMatches(passage, terms);
  let start = 0;
  let end = passage.length;
  if (passage.length > maxChars) {
    start = bestWindowStart(passage, matches, maxChars);
    end = Math.min(passage.length, start + maxChars);
    start = snapToWordStart(passage, start);
    end = snapToWordEnd(passage, end);
  }
  const inside = matches.filter((m) => m.start >= start && m.end <= end);
  let text = '';
  let at = start;
  for (const match of inside) {
    text += passage.slice(at, match.start) + MARK_OPEN + passage.slice(match.start, match.end) + MARK_CLOSE;
    at = match.end;
  }
  text += passage.slice(at, end);
  return { text: `${start > 0 ? '…' : ''}${text.trim()}${end < passage.length ? '…' : ''}`, start, end };
}

interface Match {
  start: number;
  end: number;
}

/**
 * How many of the query's words stand close together somewhere in the passage: the most distinct query words (by
 * stem) inside any window of `width` characters. A passage with "Lion Air Flight 610 … October 29" in one sentence
 * answers better than one with the same words scattered over a page.
 */
export function closestWords(passage: string, terms: QueryTerms, width: number): number {
  const stems = stemsOf(terms);
  const hits: Array<{ at: number; stem: number }> = [];
  for (const word of wordsOf(passage)) {
    const stem = stems.findIndex((s) => (s.length < 4 ? word.folded === s : word.folded.startsWith(s)));
    if (stem !== -1) hits.push({ at: word.start, stem });
  }
  let best = 0;
  let left = 0;
  const counts = new Map<number, number>();
  for (const hit of hits) {
    counts.set(hit.stem, (counts.get(hit.stem) ?? 0) + 1);
    while (hit.at - hits[left]!.at > width) {
      const gone = hits[left]!.stem;
      const count = counts.get(gone)! - 1;
      if (count === 0) counts.delete(gone);
      else counts.set(gone, count);
      left += 1;
    }
    best = Math.max(best, counts.size);
  }
  return best;
}

/** The passage's words (or CJK runs) that a query's terms matched, each once, in passage order. */
export function matchedWords(passage: string, terms: QueryTerms): string[] {
  const seen = new Map<string, string>();
  for (const match of findMatches(passage, terms)) {
    const text = passage.slice(match.start, match.end).replace(/\s+/g, ' ');
    if (!seen.has(fold(text))) seen.set(fold(text), text);
  }
  return [...seen.values()];
}

function findMatches(passage: string, terms: QueryTerms): Match[] {
  const matches: Match[] = [];
  const stems = stemsOf(terms);
  for (const word of wordsOf(passage)) {
    if (stems.some((stem) => (stem.length < 4 ? word.folded === stem : word.folded.startsWith(stem)))) {
      matches.push({ start: word.start, end: word.end });
    }
  }
  const grams = new Set(terms.bigrams);
  if (grams.size > 0) {
    const chars = Array.from(passage);
    let offset = 0;
    for (let i = 0; i < chars.length; i += 1) {
      const pair = chars[i]! + (chars[i + 1] ?? '');
      if (grams.has(pair) || grams.has(chars[i]!)) matches.push({ start: offset, end: offset + pair.length });
      offset += chars[i]!.length;
    }
  }
  return mergeOverlaps(matches);
}

function mergeOverlaps(matches: Match[]): Match[] {
  const sorted = [...matches].sort((a, b) => a.start - b.start);
  const merged: Match[] = [];
  for (const match of sorted) {
    const last = merged.at(-1);
    if (last && match.start <= last.end) last.end = Math.max(last.end, match.end);
    else merged.push({ ...match });
  }
  return merged;
}

function bestWindowStart(passage: string, matches: Match[], width: number): number {
  if (matches.length === 0) return 0;
  let best = 0;
  let bestCount = -1;
  let right = 0;
  for (let left = 0; left < matches.length; left += 1) {
    while (right < matches.length && matches[right]!.end <= matches[left]!.start + width) right += 1;
    if (right - left > bestCount) {
      bestCount = right - left;
      best = left;
    }
  }
  // A little context before the first match reads better than starting on it.
  return Math.max(0, Math.min(matches[best]!.start - Math.floor(width / 6), passage.length - width));
}

function snapToWordStart(text: string, at: number): number {
  if (at === 0) return 0;
  const space = text.indexOf(' ', at);
  return space !== -1 && space - at < 20 ? space + 1 : at;
}

function snapToWordEnd(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const space = text.lastIndexOf(' ', at);
  return space !== -1 && at - space < 20 ? space : at;
}

/** A prefix test stands in for stemming: long words lose up to three letters, short ones must match whole. */
function stemsOf(terms: QueryTerms): string[] {
  return terms.words.map((w) => fold(w)).map((w) => (w.length > 5 ? w.slice(0, Math.max(4, w.length - 3)) : w));
}

/** Lower case without accents, so "Räume" and "raume" compare equal. */
function fold(word: string): string {
  const lower = word.toLowerCase();
  // Most words are ASCII, and decomposing them changes nothing.
  return /^[\x00-\x7f]*$/.test(lower) ? lower : lower.normalize('NFKD').replace(/\p{M}/gu, '');
}

/** A word of a passage (letters and digits), where it stands and folded. */
export interface PassageWord {
  start: number;
  end: number;
  folded: string;
}

/**
 * A passage's words, each folded once. The rerank, the snippet and the reason all look at the same few passages of
 * a search, and the passages of a document are the same string objects from search to search (the index in
 * memory), so a small memo saves cutting and folding the same text again and again.
 */
export function wordsOf(passage: string): PassageWord[] {
  let words = passageWords.get(passage);
  if (words) return words;
  words = [];
  for (const match of passage.matchAll(/[\p{L}\p{N}]+/gu)) {
    words.push({ start: match.index, end: match.index + match[0].length, folded: fold(match[0]) });
  }
  if (passageWords.size >= MAX_REMEMBERED_PASSAGES) passageWords.clear();
  passageWords.set(passage, words);
  return words;
}

const MAX_REMEMBERED_PASSAGES = 2_000;
const passageWords = new Map<string, PassageWord[]>();

