import type { ExtractedDocument, TextSegment } from '../core/thread-file';
import { findPrintedPageNumbers } from './printed-page-numbers';

/**
 * The stretches of a document that chunks may not cross: pages, slides and sheets as the extractor found them, or
 * sections between headings. A chunk inside a page region has that one page number, and whatever the extractor put
 * between segments (page markers, separators) belongs to no region, so it never lands in a chunk.
 */
export interface TextRegion {
  start: number;
  end: number;
  /**
   * Cited location: "p. 37", "slide 4", "Sheet 'Budget'", "§ Results"; empty when the text has no structure. A PDF
   * page whose printed number differs says both: "p. 12 (printed 9)".
   */
  location: string;
  page?: number;
  /** Sheets are tables: a chunk of one is cited by its rows as well. */
  isTable?: boolean;
}

/**
 * A line the extractor writes at the top of a page to mark it ("--- page 12 ---"). It is no part of the page's
 * text: a chunk starting with it would match searches for "page" and cite its own marker.
 */
const PAGE_MARKER = /^\s*-{2,}\s*(?:page|p\.|seite|page no\.?)?\s*\d+(?:\s*(?:of|\/|von|sur)\s*\d+)?\s*-{2,}[^\S\n]*(?:\n|$)/i;

/**
 * A section with next to nothing under its heading line is read together with the section after it: alone, its
 * chunk would be a bare title that matches searches and answers nothing.
 */
const MIN_BODY_CHARS = 20;
/** Text before the first section (a title, a preamble) is kept when it holds at least this much. */
const MIN_GAP_CHARS = 20;

export function listRegions(document: ExtractedDocument): TextRegion[] {
  const segments = [...document.segments]
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start);
  if (segments.length > 0) return regionsFromSegments(document.text, segments);
  const headings = document.outline.filter((o) => o.offset >= 0 && o.offset < document.text.length);
  if (headings.length > 0) return regionsFromHeadings(document);
  return [{ start: 0, end: document.text.length, location: '' }];
}

function regionsFromSegments(text: string, segments: TextSegment[]): TextRegion[] {
  const regions: TextRegion[] = [];
  const printed = findPrintedPageNumbers(text, segments);
  const first = segments[0]!;
  if (first.kind === 'section' && countVisible(text, 0, first.start) >= MIN_GAP_CHARS) {
    regions.push({ start: 0, end: first.start, location: 'beginning' });
  }
  let pending: TextRegion | undefined;
  for (const segment of segments) {
    const start = Math.max(segment.start, regions.at(-1)?.end ?? 0);
    const end = Math.min(segment.end, text.length);
    if (end <= start) continue;
    // Some extractors label a section with its whole first paragraph; a citation needs only its start.
    const region: TextRegion = { start, end, location: shorten(segment.label) };
    if (segment.kind === 'sheet') region.isTable = true;
    if (segment.kind === 'page') {
      region.page = segment.number;
      region.start += markerLength(text, start, end);
      const printedNumber = printed.get(segment.number);
      if (printedNumber !== undefined) region.location = `${region.location} (printed ${printedNumber})`;
    }
    if (pending) {
      // Only sections merge: a page or a slide is a citation of its own. The section with the content names it.
      regions.push({ ...region, start: pending.start });
      pending = undefined;
      continue;
    }
    if (segment.kind === 'section' && isHeadingOnly(text, start, end)) {
      pending = region;
      continue;
    }
    regions.push(region);
  }
  if (pending) regions.push(pending);
  return regions;
}

function regionsFromHeadings(document: ExtractedDocument): TextRegion[] {
  const offsets = [...document.outline].sort((a, b) => a.offset - b.offset);
  const regions: TextRegion[] = [];
  if (countVisible(document.text, 0, offsets[0]!.offset) >= MIN_GAP_CHARS) {
    regions.push({ start: 0, end: offsets[0]!.offset, location: 'beginning' });
  }
  offsets.forEach((heading, i) => {
    const end = offsets[i + 1]?.offset ?? document.text.length;
    if (end <= heading.offset) return;
    const previous = regions.at(-1);
    // A heading directly followed by a subheading joins it, as with sections above.
    if (previous && previous.location !== 'beginning' && isHeadingOnly(document.text, previous.start, previous.end)) {
      previous.end = end;
      previous.location = `§ ${shorten(heading.title)}`;
      return;
    }
    regions.push({ start: heading.offset, end, location: `§ ${shorten(heading.title)}` });
  });
  return regions;
}

function markerLength(text: string, start: number, end: number): number {
  const marker = PAGE_MARKER.exec(text.slice(start, Math.min(end, start + 80)));
  return marker ? marker[0].length : 0;
}

function isHeadingOnly(text: string, start: number, end: number): boolean {
  const firstLineEnd = text.indexOf('\n', start);
  const bodyStart = firstLineEnd === -1 || firstLineEnd > end ? end : firstLineEnd;
  return countVisible(text, bodyStart, end) < MIN_BODY_CHARS;
}

/** Non-space characters in [start, end), counted only up to `enough` (the callers compare against a threshold). */
function countVisible(text: string, start: number, end: number, enough = MIN_GAP_CHARS + MIN_BODY_CHARS): number {
  let count = 0;
  for (let i = start; i < end && count < enough; i += 1) if (!/\s/.test(text[i]!)) count += 1;
  return count;
}

function shorten(title: string): string {
  const clean = title.replace(/\s+/g, ' ').trim();
  return clean.length > 60 ? `${clean.slice(0, 57)}…` : clean;
}
