/** Checks that any output of splitForSlack must pass, whatever the input. Each returns a problem, or undefined. */

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export function withoutWhitespace(text: string): string {
  return text.replace(/\s+/g, '');
}

/** Whether every character of `needle` appears in `haystack`, in order (extra fence lines may sit between). */
function isSubsequence(needle: string, haystack: string): boolean {
  let at = 0;
  for (let i = 0; i < haystack.length && at < needle.length; i++) if (haystack[i] === needle[at]) at++;
  return at === needle.length;
}

/** A fence left open at the end of a piece, checked line by line as a markdown renderer reads fences. */
export function unbalancedFence(piece: string): string | undefined {
  let open: string | undefined;
  for (const line of piece.split('\n')) {
    if (open === undefined) {
      const m = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
      if (m && !(m[1]!.startsWith('`') && m[2]!.includes('`'))) open = m[1];
    } else {
      const m = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (m && m[1]![0] === open[0] && m[1]!.length >= open.length) open = undefined;
    }
  }
  return open === undefined ? undefined : `fence ${open} left open`;
}

function loneSurrogate(piece: string): string | undefined {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(piece) ? 'lone surrogate' : undefined;
}

/** Whether the end of one piece and the start of the next would have been one character on screen. */
function splitGrapheme(before: string, after: string): string | undefined {
  // containing() rather than iterating: iterating segments is quadratic in Node 20's ICU.
  const last = graphemes.segment(before).containing(before.length - 1)?.segment ?? '';
  const first = graphemes.segment(after).containing(0)?.segment ?? '';
  const joined = [...graphemes.segment(last + first)];
  return last && first && joined.length < 2 ? `character cut in half: ${JSON.stringify(last)} | ${JSON.stringify(first)}` : undefined;
}

/** Every problem with a split of `text` into `pieces` under `maxChars`. Empty when the split is sound. */
export function splitProblems(text: string, pieces: string[], maxChars: number): string[] {
  const problems: string[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (piece.length > maxChars) problems.push(`piece ${i} has ${piece.length} > ${maxChars} chars`);
    if (piece.trim() === '') problems.push(`piece ${i} is empty`);
    if (/^[ \t]*\n/.test(piece) || /\s$/.test(piece)) problems.push(`piece ${i} has blank edges`);
    for (const problem of [unbalancedFence(piece), loneSurrogate(piece)]) if (problem) problems.push(`piece ${i}: ${problem}`);
    const next = pieces[i + 1];
    if (next !== undefined) {
      const problem = splitGrapheme(piece, next);
      if (problem) problems.push(`pieces ${i}/${i + 1}: ${problem}`);
    }
  }
  if (!isSubsequence(withoutWhitespace(text), withoutWhitespace(pieces.join('')))) problems.push('content lost or reordered');
  return problems;
}
