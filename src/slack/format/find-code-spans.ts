/** Character ranges [start, end) of inline code spans (`code`, ``co`de``) between `from` and `to`. */
export function findCodeSpans(text: string, from = 0, to = text.length): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let i = from;
  while (i < to) {
    const open = text.indexOf('`', i);
    if (open === -1 || open >= to) break;
    const length = runLength(text, open, to);
    const close = findClosingRun(text, open + length, to, length);
    if (close === -1) {
      // An unmatched run is literal backticks; what follows it is still ordinary text.
      i = open + length;
      continue;
    }
    spans.push([open, close + length]);
    i = close + length;
  }
  return spans;
}

function runLength(text: string, at: number, to: number): number {
  let end = at;
  while (end < to && text[end] === '`') end++;
  return end - at;
}

/** A run of exactly `length` backticks, not past a blank line: a code span never crosses paragraphs. */
function findClosingRun(text: string, from: number, to: number, length: number): number {
  const paragraphEnd = /\n[ \t]*\n/g;
  paragraphEnd.lastIndex = from;
  const limit = Math.min(to, paragraphEnd.exec(text)?.index ?? to);
  let i = from;
  while (i < limit) {
    const at = text.indexOf('`', i);
    if (at === -1 || at >= limit) return -1;
    const run = runLength(text, at, limit);
    if (run === length) return at;
    i = at + run;
  }
  return -1;
}
