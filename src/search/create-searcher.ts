import { and, inArray, isNull, ne, or } from 'drizzle-orm';
import type { Database } from '../store/database';
import { chunks, documents } from '../store/schema';
import type { SearchHit } from './search-hit';
import { findDocument } from '../documents/document-store';
import type { ThreadFile } from '../core/thread-file';
import { expandWords, spellOutAcronyms, vocabularyOf, type Expansion } from './document-vocabulary';
import { loadChunkIndex, type ChunkRow } from './chunk-index';
import { createStemmer } from './stem-words';
import { embedMissingChunks } from './embed-chunks';
import type { Embedder } from './embedder';
import { fuseRankings } from './fuse-rankings';
import { indexDocument, SEARCH_INDEX_VERSION } from './index-document';
import { isEmptyQuery, parseQuery, type QueryTerms } from './query-terms';
import { rankByEmbedding } from './rank-by-embedding';
import { rankByFullText, type RankedChunk } from './rank-full-text';
import { describeMatch } from './match-reason';
import { closestWords, selectSnippet } from './select-snippet';
import { describeTextLanguage } from '../text/language';

/** What the thread's file access asks for: these files (already extracted), their content hashes by file id. */
interface SearchRequest {
  files: ThreadFile[];
  contentHashes: Map<string, string>;
  /**
   * What to look for. Several phrasings (the person's words, the document's words, a translation into the
   * document's language) are searched each on its own and their rankings fused, so one call covers them all.
   */
  query: string | string[];
  limit: number;
  /** Longest excerpt per hit. */
  snippetChars?: number;
  signal?: AbortSignal;
}

const DEFAULT_SNIPPET_CHARS = 700;

export type Searcher = (request: SearchRequest) => Promise<SearchHit[]>;

export interface SearcherOptions {
  db: Database;
  /** When set, rankings by meaning are fused with full-text ones; the query is embedded once per search. */
  embedder?: Embedder;
  /**
   * Makes sure a document's chunks exist. By default the stored extraction (documents row) is indexed, which covers
   * documents extracted before indexing existed or whose indexing failed the first time.
   */
  ensureIndexed?: (contentHash: string, signal?: AbortSignal) => Promise<void>;
}

/** How long a document whose embedding failed waits before a search tries again. */
const RETRY_EMBEDDING_MS = 10 * 60_000;

/** Candidates each ranking contributes before fusion: enough depth that a passage good in one list survives. */
const CANDIDATES = 50;

/** Passages of the given files that best answer a query, best first, each with where it is. */
export function createSearcher(options: SearcherOptions): Searcher {
  const { db, embedder } = options;
  const ensureIndexed = options.ensureIndexed ?? ((hash, signal) => indexStoredDocument(db, hash, embedder, signal));
  // Documents indexed before embeddings were switched on, or whose embedding failed, catch up after a search that
  // missed them: once per document at a time, never delaying the search itself.
  const catchingUp = new Set<string>();
  // Documents known to be indexed (an index is never taken back while its document stays): asked about once.
  const indexed = new Set<string>();
  const failedAt = new Map<string, number>();
  const stemWords = createStemmer(db);
  const embedInBackground = (hash: string) => {
    if (!embedder || catchingUp.has(hash) || Date.now() - (failedAt.get(hash) ?? 0) < RETRY_EMBEDDING_MS) return;
    catchingUp.add(hash);
    void embedMissingChunks(db, hash, embedder)
      .then(() => failedAt.delete(hash))
      // An endpoint that is down is asked again after a pause, not on every search.
      .catch(() => failedAt.set(hash, Date.now()))
      .finally(() => catchingUp.delete(hash));
  };

  return async ({ files, contentHashes, query, limit, snippetChars = DEFAULT_SNIPPET_CHARS, signal }) => {
    const queries = listQueries(query);
    const parsed = queries.map((text) => ({ text, terms: parseQuery(text) })).filter((q) => !isEmptyQuery(q.terms));
    if (parsed.length === 0) {
      throw new Error(`The search query ${JSON.stringify(query)} has no words to look for; give a few words or a phrase from the text.`);
    }
    // The same bytes shared twice in a thread are one document; its passages are credited to the first file.
    const fileByHash = new Map<string, ThreadFile>();
    for (const file of files) {
      const hash = contentHashes.get(file.id);
      if (hash && !fileByHash.has(hash)) fileByHash.set(hash, file);
    }
    const hashes = [...fileByHash.keys()];
    if (hashes.length === 0 || limit <= 0) return [];
    const unknown = hashes.filter((hash) => !indexed.has(hash));
    if (unknown.length) {
      for (const hash of await findUnindexed(db, unknown)) await ensureIndexed(hash, signal);
      if (indexed.size > 10_000) indexed.clear();
      for (const hash of unknown) indexed.add(hash);
    }
    signal?.throwIfAborted();

    const fused = parsed.length > 1 || Boolean(embedder);
    // One read per document (then kept in memory) and one stemming statement for words not seen before: the
    // ranking itself runs here, with no round trip to the database thread.
    const [indexes, stems] = await Promise.all([
      Promise.all(hashes.map((hash) => loadChunkIndex(db, hash))),
      stemWords(parsed.flatMap((q) => q.terms.words)),
    ]);
    signal?.throwIfAborted();
    const vocabularies = indexes.map(vocabularyOf);
    const acronyms = parsed.map((q) => spellOutAcronyms(vocabularies, q.terms.words));
    const spelled = acronyms.flat().flatMap((a) => a.parts);
    // The words of a spelled-out acronym are stemmed too: one more small statement, only the first time.
    if (spelled.some((word) => !stems.has(word))) for (const [word, lexemes] of await stemWords(spelled)) stems.set(word, lexemes);
    const lists: Array<Array<{ id: number; score: number }>> = [];
    // Chunks the rankings read, by id: the rerank and the hits take their text from here.
    const rows = new Map<number, ChunkRow>();
    for (const [q, { terms }] of parsed.entries()) {
      const expansions = [...expandWords(vocabularies, terms.words), ...acronymExpansions(acronyms[q]!, stems)];
      const ranked = rankByFullText(indexes, terms, stems, Math.max(RERANKED, fused ? CANDIDATES : limit), expansions);
      for (const { row } of ranked) rows.set(row.id, row);
      lists.push(rerankByProximity(ranked, terms).slice(0, fused ? CANDIDATES : limit));
    }
    if (embedder) {
      // Every phrasing embedded in one request; none of them when no chunk has a vector of this model yet.
      let vectors: Promise<Array<number[] | undefined>> | undefined;
      const embedAll = () => (vectors ??= embedder.embed(parsed.map((q) => q.text), signal).catch((error: unknown) => {
        // The embeddings endpoint being down costs the search its semantic half, not its answer.
        if (signal?.aborted) throw error;
        return [];
      }));
      for (let i = 0; i < parsed.length; i += 1) {
        const byMeaning = await rankByEmbedding(db, hashes, async () => (await embedAll())[i], embedder.model, CANDIDATES);
        if (byMeaning.ranked.length > 0) lists.push(byMeaning.ranked);
        if (i === 0) for (const hash of byMeaning.incomplete) embedInBackground(hash);
      }
    }
    const ranked = lists.length === 1 ? lists[0]! : fuseRankings(lists.map((list) => list.map((r) => r.id)), limit);
    const terms = mergeTerms(parsed.map((q) => q.terms));
    return loadHits(db, ranked.slice(0, limit), rows, fileByHash, (text) => ({
      snippet: selectSnippet(text, terms, snippetChars).text,
      reason: describeMatch(text, parsed),
    }));
  };
}

/** Candidates whose text is read to reward query words standing together; the rest keep their BM25 order. */
const RERANKED = 20;
/** Characters within which query words count as standing together: about a sentence. */
const PROXIMITY_CHARS = 160;
/** What each further query word in that window adds to a passage's score, as a share of it. */
const PROXIMITY_BONUS = 0.15;

/**
 * BM25 counts words, not where they stand. The first candidates' text (read with the ranking) is looked at and each gains a share for every
 * further query word standing within a sentence of the others, so the passage that says the thing asked about
 * moves above one that only mentions its words here and there.
 */
function rerankByProximity(ranked: RankedChunk[], terms: QueryTerms): Array<{ id: number; score: number }> {
  if (terms.words.length < 2 || ranked.length < 2) return ranked;
  const head = ranked.slice(0, RERANKED);
  const rescored = head.map((r) => {
    const together = closestWords(r.row.text, terms, PROXIMITY_CHARS);
    return { id: r.id, score: r.score * (1 + PROXIMITY_BONUS * Math.max(0, together - 1)) };
  });
  return [...rescored.sort((a, b) => b.score - a.score || a.id - b.id), ...ranked.slice(RERANKED)];
}

/**
 * A spelled-out acronym counts as the acronym itself, once: a chunk holding all its words matches the acronym's
 * term as if it held the acronym, and one holding both is not counted twice.
 */
function acronymExpansions(acronyms: Array<{ word: number; parts: string[] }>, stems: ReadonlyMap<string, string[]>): Expansion[] {
  return acronyms.flatMap(({ word, parts }) => {
    const together = parts.map((part) => stems.get(part) ?? []).filter((lexemes) => lexemes.length > 0);
    return together.length > 0 ? [{ word, lexeme: `(${parts.join(' ')})`, weight: 1, together }] : [];
  });
}

/** The phrasings of a request, trimmed, empty and repeated ones dropped. */
function listQueries(query: string | string[]): string[] {
  const list = (Array.isArray(query) ? query : [query]).map((q) => q.trim().replace(/\s+/g, ' ')).filter(Boolean);
  return [...new Set(list)];
}

function mergeTerms(all: QueryTerms[]): QueryTerms {
  return { words: [...new Set(all.flatMap((t) => t.words))], bigrams: [...new Set(all.flatMap((t) => t.bigrams))] };
}

/** Documents not indexed yet, or indexed by an earlier SEARCH_INDEX_VERSION (rebuilt before they are searched). */
async function findUnindexed(db: Database, hashes: string[]): Promise<string[]> {
  const rows = await db
    .select({ contentHash: documents.contentHash })
    .from(documents)
    .where(
      and(
        inArray(documents.contentHash, hashes),
        or(isNull(documents.indexedAt), isNull(documents.indexVersion), ne(documents.indexVersion, SEARCH_INDEX_VERSION)),
        isNull(documents.errorCode),
      ),
    );
  return rows.map((r) => r.contentHash);
}

async function indexStoredDocument(db: Database, contentHash: string, embedder?: Embedder, signal?: AbortSignal) {
  const stored = await findDocument(db, contentHash);
  if (stored?.ok) await indexDocument(db, contentHash, stored.document, { embedder, signal });
}

async function loadHits(
  db: Database,
  ranked: Array<{ id: number; score: number }>,
  known: ReadonlyMap<number, ChunkRow>,
  fileByHash: Map<string, ThreadFile>,
  explain: (text: string) => { snippet: string; reason: string },
): Promise<SearchHit[]> {
  if (ranked.length === 0) return [];
  // Full-text candidates came with their chunks; only those found by meaning alone are read here.
  const missing = ranked.filter((r) => !known.has(r.id)).map((r) => r.id);
  const read = missing.length === 0 ? [] : await db
    .select({
      id: chunks.id,
      contentHash: chunks.contentHash,
      text: chunks.text,
      location: chunks.location,
      page: chunks.page,
      start: chunks.startOffset,
      end: chunks.endOffset,
    })
    .from(chunks)
    .where(inArray(chunks.id, missing));
  const rows = [...read, ...ranked.flatMap((r) => known.get(r.id) ?? [])];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ranked.flatMap(({ id, score }) => {
    const row = byId.get(id);
    const file = row && fileByHash.get(row.contentHash);
    if (!row || !file) return [];
    const hit: SearchHit = {
      fileId: file.id,
      fileName: file.name,
      location: row.location,
      start: row.start,
      end: row.end,
      text: row.text,
      ...explain(row.text),
      score,
    };
    const language = describeTextLanguage(row.text);
    if (language) hit.language = language;
    if (row.page !== null) hit.page = row.page;
    return [hit];
  });
}
