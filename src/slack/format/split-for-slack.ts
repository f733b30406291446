import { findCut, type CutRules } from './find-cut';
import { findFences, type Fence } from './find-fences';
import { normaliseNewlines } from './normalise-newlines';
import { parseParts, renderFence, renderPart, type Part } from './parse-parts';

const PROSE: CutRules = { kinds: ['paragraph', 'line', 'sentence', 'word'], hard: 'segment', protect: true };
const CODE: CutRules = { kinds: ['paragraph', 'line', 'word'], hard: 'grapheme', protect: false };
const TABLE_ROWS: CutRules = { kinds: ['line', 'word'], hard: 'grapheme', protect: true };

/**
 * Only boundaries between paragraphs or lines are good enough to fill the rest of a started piece; anything
 * weaker would cut a paragraph just to save a message.
 */
const FILL_PROSE: CutRules = { kinds: ['paragraph', 'line'], hard: false, protect: true };
const FILL_CODE: CutRules = { kinds: ['paragraph', 'line'], hard: false, protect: false };
const FILL_TABLE: CutRules = { kinds: ['line'], hard: false, protect: true };

/** After a head that is already out, anything but a cut inside a word will do: the piece is started. */
const AFTER_HEAD_PROSE: CutRules = { kinds: ['paragraph', 'line', 'sentence', 'word'], hard: false, protect: true };
const AFTER_HEAD_CODE: CutRules = { kinds: ['line'], hard: false, protect: false };

/**
 * Splits text into pieces of at most maxChars, never mid-word and never inside a fenced code block (a fence that must
 * be split is closed at the end of one piece and reopened, with its language, at the start of the next); prefers
 * paragraph, then line, then sentence, then word boundaries.
 *
 * A word longer than a whole piece, or a run of CJK text, is cut between dictionary words or, failing that, between
 * characters as a reader sees them (never inside an emoji or a surrogate pair). A table that must be split repeats
 * its header in the next piece. Whitespace at the cuts is dropped; "\r\n" becomes "\n"; an unclosed fence is closed.
 */
export function splitForSlack(text: string, maxChars: number): string[] {
  if (!Number.isInteger(maxChars) || maxChars < 2) throw new RangeError(`maxChars must be an integer ≥ 2, got ${maxChars}`);
  const pieces: string[] = [];
  let current = '';
  for (const part of parseParts(normaliseNewlines(text))) {
    const separator = current === '' ? '' : part.blankBefore ? '\n\n' : '\n';
    const whole = renderPart(part);
    if (current.length + separator.length + whole.length <= maxChars) {
      current += separator + whole;
      continue;
    }
    const room = current === '' ? 0 : maxChars - current.length - separator.length;
    const { fill, chunks } = cutPart(part, maxChars, room);
    if (fill !== undefined) current += separator + fill;
    if (current !== '') pieces.push(current);
    // The last chunk stays open, so the next part can join it.
    current = chunks.pop() ?? '';
    pieces.push(...chunks);
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

/** A part too big for the room left: what fills that room (if it can be cut well), then whole-size chunks. */
interface PartCut {
  fill?: string;
  chunks: string[];
}

function cutPart(part: Part, maxChars: number, room: number): PartCut {
  switch (part.kind) {
    case 'prose':
      return cutWithin(part.text, (body) => body, { room, fill: FILL_PROSE }, { limit: maxChars, rules: PROSE });
    case 'fence':
      return cutFence(part.fence, maxChars, room);
    case 'table':
      return cutTable(part, maxChars, room);
  }
}

function cutFence(fence: Fence, maxChars: number, room: number): PartCut {
  // The language goes with every reopened fence; only when it cannot fit at all is it dropped.
  let reopen: Fence = fence;
  if (maxChars - fenceOverhead(reopen) < 2) reopen = { ...fence, info: '' };
  if (maxChars - fenceOverhead(reopen) < 2) {
    throw new RangeError(`maxChars ${maxChars} is too small to split a ${fence.marker} code block`);
  }
  if (fence.body === '') return { chunks: [renderFence(reopen, '')] };
  return cutWithin(
    fence.body,
    (body) => renderFence(reopen, body),
    { room: room - fenceOverhead(reopen), fill: FILL_CODE },
    { limit: maxChars - fenceOverhead(reopen), rules: CODE },
  );
}

/** The fence lines around a body: opening line, closing line and the two line breaks. */
function fenceOverhead(fence: Fence): number {
  return renderFence(fence, '').length + 1;
}

function cutTable(part: Extract<Part, { kind: 'table' }>, maxChars: number, room: number): PartCut {
  const head = `${part.header}\n${part.delimiter}`;
  const overhead = head.length + 1;
  // A header that takes most of a piece is not worth repeating: cut the table like prose instead.
  if (overhead > maxChars / 2 || part.rows.length === 0) {
    return cutWithin(renderPart(part), (body) => body, { room, fill: FILL_PROSE }, { limit: maxChars, rules: PROSE });
  }
  return cutWithin(
    part.rows.join('\n'),
    (rows) => `${head}\n${rows}`,
    { room: room - overhead, fill: FILL_TABLE },
    { limit: maxChars - overhead, rules: TABLE_ROWS },
  );
}

/**
 * Cuts `body` into chunks that are each wrapped (in fence lines, under a table header…) and fit their piece: the
 * first may go into the `room` left in the current piece if a good boundary allows, the rest use the full `limit`.
 */
function cutWithin(
  body: string,
  wrap: (chunk: string) => string,
  start: { room: number; fill: CutRules },
  rest: { limit: number; rules: CutRules },
): PartCut {
  // Offsets into `body` rather than ever-shorter copies of it: a long answer cut small must stay linear.
  let offset = 0;
  let fill: string | undefined;
  if (start.room >= 1) {
    const cut = findCut(body, start.room, start.fill);
    if (cut) {
      fill = wrap(body.slice(0, cut.end).trimEnd());
      offset = nextStart(body, cut.resume, cut.kind);
    }
  }
  const chunks: string[] = [];
  while (offset < body.length) {
    offset = skipDeepIndent(body, offset, rest.limit);
    if (body.length - offset <= rest.limit) {
      chunks.push(wrap(body.slice(offset).trimEnd()));
      break;
    }
    const cut = findCut(body, rest.limit, rest.rules, offset);
    if (cut === undefined) break; // only whitespace is left
    chunks.push(wrap(body.slice(offset, offset + cut.end).trimEnd()));
    offset = nextStart(body, offset + cut.resume, cut.kind);
  }
  return { fill, chunks };
}

/** Indentation that would fill half a piece is dropped: keeping it could leave no room for the line itself. */
function skipDeepIndent(body: string, at: number, limit: number): number {
  const spaces = /[ \t]*/y;
  spaces.lastIndex = at;
  spaces.exec(body);
  return spaces.lastIndex - at >= limit / 2 ? spaces.lastIndex : at;
}

/**
 * Where the next chunk starts: past blank lines; after a line cut the line keeps its indentation (nested lists,
 * code), after a word cut the spaces go. The end of `body` when nothing but whitespace is left.
 */
function nextStart(body: string, at: number, kind: string): number {
  const skip = kind === 'paragraph' || kind === 'line' ? /(?:[ \t]*\n)*/y : /(?:[ \t]*\n)*[ \t]*/y;
  skip.lastIndex = at;
  skip.exec(body);
  const content = /\S/g;
  content.lastIndex = skip.lastIndex;
  return content.exec(body) === null ? body.length : skip.lastIndex;
}

/**
 * Splits text whose first `headLength` characters are already out as the start of the first piece (a streamed
 * message cannot take text back), so that piece is never shorter than them. When splitForSlack's own first piece
 * begins with the head, that split is the answer. Otherwise the first piece is the head plus what fits of the rest
 * of its paragraph or code block, up to the best line, sentence or word boundary (a code block cut there is closed
 * and reopened, with its language, in the next piece); the rest is split as splitForSlack splits.
 */
export function splitKeepingHead(text: string, maxChars: number, headLength: number): string[] {
  const pieces = splitForSlack(text, maxChars);
  const head = text.slice(0, headLength);
  if (headLength === 0 || headLength > maxChars || pieces[0]?.startsWith(head)) return pieces;
  const fences = findFences(text);
  const fence = fences.find((f) => f.start < headLength && headLength <= bodyEnd(text, f));
  const close = fence ? `\n${fence.indent}${fence.marker}` : '';
  // Where the head's own paragraph or code body ends (a line break, included so a cut can fall on it).
  const boundary = fence ? bodyEnd(text, fence) : proseEnd(text, headLength, fences);
  const room = Math.min(maxChars - close.length, boundary + 1) - headLength;
  const rules = fence ? AFTER_HEAD_CODE : AFTER_HEAD_PROSE;
  const cut = room >= 1 ? findCut(text.slice(0, boundary + 1), room, rules, headLength) : undefined;
  const end = headLength + (cut?.end ?? 0);
  if (fence?.closed && end === bodyEnd(text, fence) && fence.end <= maxChars) {
    // The whole body is in: the fence's own closing line ends the piece, and the next does not open an empty block.
    return [text.slice(0, fence.end), ...splitForSlack(text.slice(fence.end), maxChars)];
  }
  // Past the whitespace at the cut, as between any two pieces; with no cut the rest goes on from the head's end.
  const resume = nextStart(text, headLength + (cut?.resume ?? 0), cut?.kind ?? (fence ? 'line' : 'word'));
  const first = head + text.slice(headLength, end).trimEnd() + (fence && end + close.length <= maxChars ? close : '');
  const rest = (fence ? `${fence.indent}${fence.marker}${fence.info}\n` : '') + text.slice(resume);
  return [first, ...splitForSlack(rest, maxChars)];
}

/** Where a fence's body ends: the line break before its closing line, or the end of a fence never closed. */
function bodyEnd(text: string, fence: Fence): number {
  return fence.closed ? text.lastIndexOf('\n', fence.end - 1) : fence.end;
}

/** The line break that ends the paragraph `at` is in, or the line before the next code block, or the end. */
function proseEnd(text: string, at: number, fences: readonly Fence[]): number {
  const blank = /\n[ \t]*\n/g;
  blank.lastIndex = at;
  const paragraph = blank.exec(text)?.index ?? text.length;
  const nextFence = fences.find((f) => f.start >= at);
  return Math.min(paragraph, nextFence ? nextFence.start - 1 : text.length);
}
