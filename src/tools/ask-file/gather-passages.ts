import type { SearchHit } from '../../search/search-hit';
import type { ThreadFileAccess } from '../../files/thread-file-access';
import type { ExtractedDocument } from '../../core/thread-file';
import { listRegions } from '../../search/document-regions';
import { createLineLocator } from '../../search/line-locator';

/** A stretch of a file to read, with the location to cite it by. */
export interface Passage {
  location: string;
  page?: number;
  start: number;
  end: number;
  text: string;
}

/**
 * The passages of one file that several search queries found, best first: hits are fused by rank across queries
 * (a passage found by two queries beats one found by one) and overlapping hits on the same page become one passage.
 */
export async function gatherPassages(
  files: Pick<ThreadFileAccess, 'search'>,
  fileId: string,
  queries: string[],
  options: { hitsPerQuery: number; signal?: AbortSignal; onSearch?: (query: string, ms: number, error?: unknown) => void },
): Promise<Passage[]> {
  const votes = new Map<string, { hit: SearchHit; score: number }>();
  for (const query of queries) {
    const started = Date.now();
    let hits: SearchHit[];
    try {
      hits = await files.search(fileId, query, options.hitsPerQuery, { signal: options.signal });
    } catch (error) {
      options.onSearch?.(query, Date.now() - started, error);
      throw error;
    }
    options.onSearch?.(query, Date.now() - started);
    hits.forEach((hit, rank) => {
      const key = `${hit.start}:${hit.end}`;
      const entry = votes.get(key) ?? { hit, score: 0 };
      entry.score += 1 / (60 + rank + 1);
      votes.set(key, entry);
    });
  }
  const ranked = [...votes.values()].sort((a, b) => b.score - a.score).map((v) => v.hit);
  return mergeOverlapping(ranked.map(toPassage));
}

/** The document's first regions (title, abstract, contents), for questions no search term pins down. */
export function openingPassages(document: ExtractedDocument, maxChars: number): Passage[] {
  const passages: Passage[] = [];
  const lineAt = createLineLocator(document.text);
  let chars = 0;
  for (const region of listRegions(document)) {
    if (chars >= maxChars) break;
    const end = Math.min(region.end, region.start + (maxChars - chars));
    const text = document.text.slice(region.start, end).trim();
    if (!text) continue;
    // Plain text has no pages or sections: lines are what the answer can cite.
    const location = region.location || `lines ${lineAt(region.start)}–${lineAt(end)}`;
    const passage: Passage = { location, start: region.start, end, text };
    if (region.page !== undefined) passage.page = region.page;
    passages.push(passage);
    chars += end - region.start;
  }
  return passages;
}

/** Every region of a document, for a file small enough to read whole. */
export function wholeDocumentPassages(document: ExtractedDocument): Passage[] {
  return openingPassages(document, document.text.length);
}

function toPassage(hit: SearchHit): Passage {
  const passage: Passage = { location: hit.location, start: hit.start, end: hit.end, text: hit.text };
  if (hit.page !== undefined) passage.page = hit.page;
  return passage;
}

/** Joins passages that overlap (chunks share a little text) and sit on the same page or section, keeping rank order. */
function mergeOverlapping(passages: Passage[]): Passage[] {
  const merged: Passage[] = [];
  for (const passage of passages) {
    const twin = merged.find(
      (m) => m.location === passage.location && passage.start <= m.end && passage.end >= m.start,
    );
    if (!twin) {
      merged.push({ ...passage });
      continue;
    }
    const [first, second] = twin.start <= passage.start ? [twin, passage] : [passage, twin];
    twin.text = first.text + second.text.slice(Math.max(0, first.end - second.start));
    twin.start = first.start;
    twin.end = Math.max(first.end, second.end);
  }
  return merged;
}
