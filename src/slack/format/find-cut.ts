/** Places to cut text where a reader expects a break, strongest first. */
type CutKind = 'paragraph' | 'line' | 'sentence' | 'word';

/** Cut the text at `from` into `slice(from, from + end)` and what starts at `from + resume`; between is whitespace. */
export interface Cut {
  end: number;
  resume: number;
  /** `segment`: a dictionary word boundary (CJK has no spaces); `grapheme`: between two characters. */
  kind: CutKind | 'segment' | 'grapheme';
}

export interface CutRules {
  /** Soft boundaries to try, in order of preference. */
  kinds: readonly CutKind[];
  /** When no soft boundary fits, cut between words of scripts without spaces, else between characters. */
  hard: 'segment' | 'grapheme' | false;
  /** Keep inline code, links and Slack tokens whole when a softer choice exists. */
  protect: boolean;
}

const PATTERNS: Record<CutKind, { regex: RegExp; end: (m: RegExpExecArray) => number }> = {
  paragraph: { regex: /\n[ \t]*\n(?:[ \t]*\n)*/g, end: (m) => m.index },
  line: { regex: /\n/g, end: (m) => m.index },
  // After sentence punctuation (and closing quotes); CJK full stops need no space after them.
  sentence: { regex: /[.!?…]+["'”’)\]]*(?=[ \t])|[。！？]+[」』”’）)]*/gu, end: (m) => m.index + m[0].length },
  word: { regex: /[ \t]+/g, end: (m) => m.index },
};

/**
 * Spans that should not be cut through: `code`, [links](…), <slack|tokens>, &amp; entities. Single-line and of
 * bounded length, so a line full of stray brackets cannot make the search quadratic.
 */
const PROTECTED = /(`{1,3})[^`\n]{1,300}?\1|!?\[[^[\]\n]{0,300}\]\([^)\s]{0,1000}\)|<[^<>\n]{1,1000}>|&(?:amp|lt|gt);/g;

const LOOKAHEAD = 256;

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The best cut that leaves at most `limit` characters before it, or undefined when only a hard cut would do and
 * hard cuts are not allowed. A strong boundary in the back half of the window beats a weaker one later on, so
 * pieces stay reasonably full without cutting sentences when a paragraph break is near.
 */
export function findCut(fullText: string, limit: number, rules: CutRules, from = 0): Cut | undefined {
  // Patterns only need the window plus a little lookahead; scanning (or copying) the whole rest of a long text for
  // every cut would make splitting quadratic.
  const text = fullText.slice(from, from + limit + LOOKAHEAD);
  const firstContent = text.search(/\S/);
  if (firstContent === -1) return undefined;
  const ranges = rules.protect ? protectedRanges(text, limit) : [];
  const allowed = (end: number) => end > firstContent && end <= limit && !isInside(ranges, end);
  for (const floor of [Math.floor(limit / 2), 0]) {
    for (const kind of rules.kinds) {
      const cut = lastSoftCut(text, kind, limit, (end) => end > floor && allowed(end));
      if (cut) return cut;
    }
  }
  if (rules.hard === 'segment') {
    const end = lastWordBoundary(text, limit, firstContent);
    if (end !== undefined) return { end, resume: end, kind: 'segment' };
  }
  if (rules.hard !== false) return { ...hardCut(text, limit, firstContent), kind: 'grapheme' };
  return undefined;
}

function lastSoftCut(text: string, kind: CutKind, limit: number, allowed: (end: number) => boolean): Cut | undefined {
  const { regex, end: endOf } = PATTERNS[kind];
  const re = new RegExp(regex.source, regex.flags);
  let best: Cut | undefined;
  for (let m = re.exec(text); m !== null && m.index <= limit; m = re.exec(text)) {
    const end = endOf(m);
    if (allowed(end)) best = { end, resume: m.index + m[0].length, kind };
    if (m[0].length === 0) re.lastIndex++;
  }
  return best;
}

/** Whether `at` falls strictly inside one of the sorted, disjoint `ranges` (binary search: there can be thousands). */
function isInside(ranges: ReadonlyArray<[number, number]>, at: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [start, end] = ranges[mid]!;
    if (at <= start) high = mid - 1;
    else if (at >= end) low = mid + 1;
    else return true;
  }
  return false;
}

function protectedRanges(text: string, limit: number): Array<[number, number]> {
  const re = new RegExp(PROTECTED.source, PROTECTED.flags);
  const ranges: Array<[number, number]> = [];
  for (let m = re.exec(text); m !== null && m.index < limit; m = re.exec(text)) {
    ranges.push([m.index, m.index + m[0].length]);
  }
  return ranges;
}

/*
 * Boundaries are found backwards from the limit with `containing()`: iterating segments from the start is
 * quadratic in Node 20's ICU (16,000 characters take 0.2 s). Both run over the window with its lookahead, never a
 * window cut at the limit: cut there, the text would end inside an emoji sequence and the segmenter would report a
 * boundary that the whole text does not have.
 */

/** The last character boundary at or before `limit`. */
function lastCharacterBoundary(text: string, limit: number, firstContent: number): number | undefined {
  const index = graphemeSegmenter.segment(text).containing(limit)?.index ?? limit;
  return index > firstContent ? index : undefined;
}

/**
 * Dictionary word boundaries split CJK runs into words, but ICU also puts word boundaries inside some emoji
 * sequences (between 👍 and its skin tone), so only those that are also character boundaries count.
 */
function lastWordBoundary(text: string, limit: number, firstContent: number): number | undefined {
  const words = wordSegmenter.segment(text);
  const characters = graphemeSegmenter.segment(text);
  for (let at = limit; at > firstContent; ) {
    const boundary = words.containing(at)?.index ?? at;
    if (boundary <= firstContent) return undefined;
    if (characters.containing(boundary)?.index === boundary) return boundary;
    at = boundary - 1;
  }
  return undefined;
}

/** Between two characters as a reader sees them (an emoji with skin tone or a flag is one), else between code points. */
function hardCut(text: string, limit: number, firstContent: number): { end: number; resume: number } {
  let end = lastCharacterBoundary(text, limit, firstContent);
  if (end === undefined) {
    // One "character" longer than the whole limit (a pile of combining marks): cut it, but never a surrogate pair.
    end = isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
    if (end <= firstContent) throw new RangeError(`maxChars ${limit} is too small to hold one character`);
  }
  return { end, resume: end };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
