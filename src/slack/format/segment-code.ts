import { findCodeSpans } from './find-code-spans';
import { findFences } from './find-fences';

/** A stretch of markdown that is either prose or code (a fenced block or an inline span, delimiters included). */
export interface Segment {
  kind: 'prose' | 'code';
  text: string;
  start: number;
}

/**
 * Cuts markdown into prose and code. Everything that rewrites text (escaping, mention neutralising, mrkdwn
 * conversion) goes through this one cut, so they all agree on what is code and must be left as written.
 */
export function segmentCode(text: string): Segment[] {
  const segments: Segment[] = [];
  const pushProse = (from: number, to: number) => {
    let at = from;
    for (const [start, end] of findCodeSpans(text, from, to)) {
      if (start > at) segments.push({ kind: 'prose', text: text.slice(at, start), start: at });
      segments.push({ kind: 'code', text: text.slice(start, end), start });
      at = end;
    }
    if (to > at) segments.push({ kind: 'prose', text: text.slice(at, to), start: at });
  };
  let at = 0;
  for (const fence of findFences(text)) {
    pushProse(at, fence.start);
    segments.push({ kind: 'code', text: text.slice(fence.start, fence.end), start: fence.start });
    at = fence.end;
  }
  pushProse(at, text.length);
  return segments;
}
