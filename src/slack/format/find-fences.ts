/** A fenced code block (``` or ~~~), located by character offsets in the text it was found in. */
export interface Fence {
  /** Offset of the opening fence line. */
  start: number;
  /** Offset just past the closing fence line (or the end of the text when the fence is never closed). */
  end: number;
  indent: string;
  /** The fence characters exactly as opened, e.g. "```" or "~~~~"; a closing fence must repeat at least these. */
  marker: string;
  /** The info string after the opening marker, usually the language ("ts", "python"), trimmed. */
  info: string;
  /** The lines between the fences, joined by "\n". */
  body: string;
  closed: boolean;
}

const OPENING = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
// A trailing "\r" is allowed so callers that keep Windows newlines still see where fences close.
const CLOSING = /^[ \t]*(`{3,}|~{3,})[ \t\r]*$/;

/**
 * Every fenced code block in `text`, in order. Indentation is accepted at any depth (not CommonMark's three spaces)
 * because models nest fences inside list items, and a fence we failed to see is a fence we might cut in half.
 */
export function findFences(text: string): Fence[] {
  const fences: Fence[] = [];
  let open: { start: number; indent: string; marker: string; info: string; bodyStart: number } | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    if (open === undefined) {
      const m = OPENING.exec(line);
      // A backtick fence's info string may not contain backticks: "```a``` b" is inline code, not a fence.
      if (m && !(m[2]!.startsWith('`') && m[3]!.includes('`'))) {
        open = { start: lineStart, indent: m[1]!, marker: m[2]!, info: m[3]!.trim(), bodyStart: lineEnd + 1 };
      }
    } else {
      const m = CLOSING.exec(line);
      if (m && m[1]![0] === open.marker[0] && m[1]!.length >= open.marker.length) {
        const body = lineStart > open.bodyStart ? text.slice(open.bodyStart, lineStart - 1) : '';
        fences.push({ ...withoutBodyStart(open), end: lineEnd, body, closed: true });
        open = undefined;
      }
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (open !== undefined) {
    const body = open.bodyStart <= text.length ? text.slice(open.bodyStart) : '';
    fences.push({ ...withoutBodyStart(open), end: text.length, body, closed: false });
  }
  return fences;
}

function withoutBodyStart(open: { start: number; indent: string; marker: string; info: string }) {
  return { start: open.start, indent: open.indent, marker: open.marker, info: open.info };
}
