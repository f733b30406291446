import type { TextSegment } from '../core/thread-file';

/**
 * The page numbers printed on a PDF's pages, where they differ from the PDF's own page order: a textbook whose
 * page 1 is the PDF's seventh page, a report whose cover and contents go unnumbered. People cite what is printed
 * ("page 4 of the report"), search cites the PDF page; a hit names both so either can be found again.
 *
 * Read from the text alone: a number standing alone, or opening or closing a short running head or foot ("4 1.1.
 * TOPOLOGISCHE RÄUME", "GeoBase® 11"), among the first and last lines of a page. One such number on a page proves
 * little (a table may start with a figure), so only numbers that keep the same distance to the PDF page number on
 * at least MIN_AGREEING pages count: page numbering runs on, stray figures do not.
 */
const EDGE_LINES = 3;
const MAX_HEAD_CHARS = 70;
const PAGE_MARKER = /^\s*-{2,}.*page.*-{2,}\s*$/i;
const LEADING = /^(\d{1,5})(?:\s|$)/;
const TRAILING = /(?:^|\s)(\d{1,5})$/;

/** PDF page number → printed number, only for pages whose printed number differs. */
export function findPrintedPageNumbers(text: string, segments: readonly TextSegment[]): Map<number, number> {
  const pages = segments.filter((s) => s.kind === 'page');
  const candidates = new Map<number, Set<number>>();
  for (const page of pages) candidates.set(page.number, numbersAtEdges(text.slice(page.start, page.end)));
  const runsOn = (page: number, printed: number) =>
    Boolean(candidates.get(page - 1)?.has(printed - 1) || candidates.get(page + 1)?.has(printed + 1));
  const printed = new Map<number, number>();
  for (const [page, found] of candidates) {
    // The smallest shift that runs on: a page with both its number and a stray figure keeps its number.
    const match = [...found].filter((n) => runsOn(page, n)).sort((a, b) => Math.abs(page - a) - Math.abs(page - b))[0];
    if (match !== undefined && match !== page) printed.set(page, match);
  }
  return printed;
}

function numbersAtEdges(pageText: string): Set<number> {
  const lines = pageText.split('\n').map((l) => l.trim()).filter((l) => l && !PAGE_MARKER.test(l));
  const edge = [...lines.slice(0, EDGE_LINES), ...lines.slice(-EDGE_LINES)];
  const found = new Set<number>();
  for (const line of edge) {
    if (line.length > MAX_HEAD_CHARS) continue;
    for (const pattern of [LEADING, TRAILING]) {
      const match = pattern.exec(line);
      if (match) found.add(Number(match[1]));
    }
  }
  found.delete(0);
  return found;
}
