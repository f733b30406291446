/** Character ranges [start, end) of inline code spans (`code`, ``co`de``) between `from` and `to`. */
export function findCodeSpans(text: string, from = 0, to = text.length): Array<[number, number]> {
  const runs = findBacktickRuns(text, from, to);
  // Run indexes by length, so a closing run is found by binary search rather than by rescanning the paragraph
  // for every opening run: a long line of stray backticks must not make this quadratic.
  const byLength = new Map<number, number[]>();
  runs.forEach((run, i) => {
    const list = byLength.get(run.length) ?? [];
    list.push(i);
    byLength.set(run.length, list);
  });

  const spans: Array<[number, number]> = [];
  for (let i = 0; i < runs.length; ) {
    const open = runs[i]!;
    const candidates = byLength.get(open.length)!;
    const next = candidates[firstGreater(candidates, i)];
    const close = next === undefined ? undefined : runs[next];
    // A code span never crosses a blank line; an unmatched run is literal backticks and scanning goes on after it.
    if (close === undefined || close.paragraph !== open.paragraph) {
      i++;
      continue;
    }
    spans.push([open.start, close.start + close.length]);
    i = next! + 1;
  }
  return spans;
}

interface BacktickRun {
  start: number;
  length: number;
  /** How many blank lines come before the run: runs in different paragraphs never pair. */
  paragraph: number;
}

function findBacktickRuns(text: string, from: number, to: number): BacktickRun[] {
  const runs: BacktickRun[] = [];
  const pattern = /`+|\n[ \t]*(?=\n)/g;
  pattern.lastIndex = from;
  let paragraph = 0;
  for (let m = pattern.exec(text); m !== null && m.index < to; m = pattern.exec(text)) {
    if (m[0].startsWith('\n')) paragraph++;
    else runs.push({ start: m.index, length: Math.min(m[0].length, to - m.index), paragraph });
  }
  return runs;
}

/** The position in the sorted `list` of the first value greater than `value`. */
function firstGreater(list: readonly number[], value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (list[mid]! <= value) low = mid + 1;
    else high = mid;
  }
  return low;
}
