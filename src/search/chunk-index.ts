import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../store/database';

/** A stored chunk as search reads it. */
export interface ChunkRow {
  id: number;
  contentHash: string;
  text: string;
  location: string;
  page: number | null;
  start: number;
  end: number;
}

/**
 * One document's search index held in memory: its chunks and, for every lexeme of their tsvectors (words and CJK
 * bigrams apart), which chunks hold it how often. A content hash names immutable text, and its chunks change only
 * when an index an earlier version built is rebuilt (index-document.ts, which forgets it here). So the index is read
 * from the database once (one statement) and every later search of the document is scored here, without a round
 * trip to the database thread and without re-reading chunk text.
 */
export interface ChunkIndex {
  chunks: IndexedChunk[];
  /** Lexeme → chunk positions (into `chunks`) and term frequencies, interleaved: [chunk, tf, chunk, tf, …]. */
  words: Map<string, number[]>;
  grams: Map<string, number[]>;
  tokens: number;
}

interface IndexedChunk extends ChunkRow {
  tokens: number;
}

/**
 * Indexes kept, least recently searched out first: bounded by the text they hold (a 117-page PDF is ~150 K
 * characters, its index a few MB), and read again after an hour so a document forgotten (retention, a deleted
 * Slack file) and indexed again under the same hash is not served from memory for long.
 */
const MAX_CACHED_CHARS = 40_000_000;
const TTL_MS = 60 * 60_000;
const cache = new Map<string, { index: Promise<ChunkIndex>; chars: number; expires: number }>();

/** The document's index; only for a document already indexed (documents.indexed_at set), as search makes sure. */
export function loadChunkIndex(db: Database, contentHash: string): Promise<ChunkIndex> {
  const cached = cache.get(contentHash);
  // Map order is insertion order: re-inserting marks it most recently used.
  cache.delete(contentHash);
  if (cached && cached.expires > Date.now()) {
    cache.set(contentHash, cached);
    return cached.index;
  }
  const entry = { index: readChunkIndex(db, contentHash), chars: 0, expires: Date.now() + TTL_MS };
  cache.set(contentHash, entry);
  entry.index.then((index) => {
    entry.chars = index.chunks.reduce((sum, c) => sum + c.text.length, 0);
    let total = 0;
    for (const { chars } of cache.values()) total += chars;
    for (const [hash, old] of cache) {
      if (total <= MAX_CACHED_CHARS || old === entry) break;
      cache.delete(hash);
      total -= old.chars;
    }
  }, () => {
    if (cache.get(contentHash) === entry) cache.delete(contentHash);
  });
  return entry.index;
}

/** Drops a document's index from memory: its chunks were rebuilt. */
export function forgetChunkIndex(contentHash: string): void {
  cache.delete(contentHash);
}

async function readChunkIndex(db: Database, contentHash: string): Promise<ChunkIndex> {
  // Each tsvector as {lexeme: occurrences}: JSON is parsed natively, and the counts are what BM25 needs.
  const result = await db.execute(sql`
    select id, text, location, page, start_offset, end_offset, tokens,
      (select json_object_agg(u.lexeme, cardinality(u.positions)) from unnest(tsv) as u) as words,
      (select json_object_agg(u.lexeme, cardinality(u.positions)) from unnest(cjk_tsv) as u) as grams
    from chunks where content_hash = ${contentHash}
    order by id
  `);
  type Row = {
    id: number | string; text: string; location: string; page: number | null; start_offset: number; end_offset: number;
    tokens: number; words: Counts | string | null; grams: Counts | string | null;
  };
  const index: ChunkIndex = { chunks: [], words: new Map(), grams: new Map(), tokens: 0 };
  for (const row of rowsOf<Row>(result)) {
    const at = index.chunks.length;
    index.chunks.push({
      id: Number(row.id),
      contentHash,
      text: row.text,
      location: row.location,
      page: row.page === null ? null : Number(row.page),
      start: Number(row.start_offset),
      end: Number(row.end_offset),
      tokens: Number(row.tokens),
    });
    index.tokens += Number(row.tokens);
    addPostings(index.words, at, row.words);
    addPostings(index.grams, at, row.grams);
  }
  return index;
}

type Counts = Record<string, number>;

function addPostings(postings: Map<string, number[]>, chunk: number, counts: Counts | string | null): void {
  if (!counts) return;
  const parsed: Counts = typeof counts === 'string' ? JSON.parse(counts) : counts;
  for (const lexeme in parsed) {
    const list = postings.get(lexeme);
    if (list) list.push(chunk, parsed[lexeme]!);
    else postings.set(lexeme, [chunk, parsed[lexeme]!]);
  }
}
