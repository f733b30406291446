/**
 * Where a character range of extracted text sits, in the words people use: "p. 3–5", "slides 2–4",
 * "Sheet 'Budget'", "§ Results". For activity lines ("F1 p. 3–5"), peek headers and outlines.
 */
import type { ExtractedDocument, TextSegment } from '../core/thread-file';

export function describeTextRange(document: Pick<ExtractedDocument, 'segments'>, start: number, stop: number): string | undefined {
  const touched = document.segments.filter((s) => s.start < Math.max(stop, start + 1) && s.end > start);
  const first = touched[0];
  const last = touched[touched.length - 1];
  if (!first || !last) return undefined;
  if (first === last) return first.label;
  if (first.kind === 'page' && last.kind === 'page') return `p. ${first.number}–${last.number}`;
  if (first.kind === 'slide' && last.kind === 'slide') return `slides ${first.number}–${last.number}`;
  return `${first.label} – ${last.label}`;
}

/** The segment holding a character offset, for outline entries. */
export function segmentAt(document: Pick<ExtractedDocument, 'segments'>, offset: number): TextSegment | undefined {
  return document.segments.find((s) => offset >= s.start && offset < s.end);
}

/** "37 pages", "18 slides", "2 sheets"; undefined when the format has no such unit. */
export function describePageCount(document: Pick<ExtractedDocument, 'segments' | 'pageCount'>): string | undefined {
  if (!document.pageCount) return undefined;
  const kind = document.segments[0]?.kind;
  const unit = kind === 'slide' ? 'slide' : kind === 'sheet' ? 'sheet' : 'page';
  return `${document.pageCount.toLocaleString('en-US')} ${unit}${document.pageCount === 1 ? '' : 's'}`;
}
