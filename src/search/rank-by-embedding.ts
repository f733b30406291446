import { eq } from 'drizzle-orm';
import type { Database } from '../store/database';
import { chunks } from '../store/schema';
import { cosineSimilarity } from './embedder';

interface StoredVectors {
  ids: number[];
  vectors: Float32Array[];
  /** Every chunk of the document has a vector of this model. */
  complete: boolean;
}

/**
 * Vectors never change once stored (a content hash names immutable text), so they are kept in memory after the
 * first search: reading a thousand real[] arrays back from the database costs more than the whole cosine scan.
 * Bounded by the number of floats held, oldest document out first.
 */
const MAX_CACHED_FLOATS = 16_000_000;
const cache = new Map<string, StoredVectors>();
let cachedFloats = 0;

/**
 * Chunks of the given documents by cosine similarity to the query. A small scan in TypeScript: one thread's files
 * hold a few thousand chunks at most, so no vector index (pgvector) is needed, and PGlite and PostgreSQL behave alike.
 * Chunks without a vector of this embedder's model are simply not ranked here, and when none has one the query is
 * not embedded at all.
 */
export async function rankByEmbedding(
  db: Database,
  contentHashes: string[],
  embedQuery: () => Promise<number[] | undefined>,
  model: string,
  limit: number,
): Promise<{ ranked: Array<{ id: number; score: number }>; incomplete: string[] }> {
  const stored = await Promise.all(contentHashes.map((hash) => loadVectors(db, hash, model)));
  const incomplete = contentHashes.filter((_, i) => !stored[i]!.complete);
  if (stored.every((s) => s.ids.length === 0)) return { ranked: [], incomplete };
  const queryVector = await embedQuery();
  if (!queryVector) return { ranked: [], incomplete };
  const scored: Array<{ id: number; score: number }> = [];
  for (const { ids, vectors } of stored) {
    ids.forEach((id, i) => scored.push({ id, score: cosineSimilarity(queryVector, vectors[i]!) }));
  }
  return { ranked: scored.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, limit), incomplete };
}

async function loadVectors(db: Database, contentHash: string, model: string): Promise<StoredVectors> {
  const key = `${model}\u0000${contentHash}`;
  const hit = cache.get(key);
  if (hit) {
    // Map order is insertion order: re-inserting marks it most recently used.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const rows = await db
    .select({ id: chunks.id, embedding: chunks.embedding, model: chunks.embeddingModel })
    .from(chunks)
    .where(eq(chunks.contentHash, contentHash));
  const stored: StoredVectors = { ids: [], vectors: [], complete: false };
  for (const row of rows) {
    if (!row.embedding || row.model !== model) continue;
    stored.ids.push(row.id);
    stored.vectors.push(Float32Array.from(row.embedding));
  }
  stored.complete = stored.ids.length === rows.length;
  // Half-embedded documents (embedding still running, or failed part-way) are read again next time.
  if (stored.complete) remember(key, stored);
  return stored;
}

function remember(key: string, stored: StoredVectors): void {
  const floats = stored.vectors.reduce((sum, v) => sum + v.length, 0);
  if (floats === 0 || floats > MAX_CACHED_FLOATS) return;
  cache.set(key, stored);
  cachedFloats += floats;
  for (const [oldKey, old] of cache) {
    if (cachedFloats <= MAX_CACHED_FLOATS) break;
    cache.delete(oldKey);
    cachedFloats -= old.vectors.reduce((sum, v) => sum + v.length, 0);
  }
}

/** Forgets cached vectors of a document, e.g. after its chunks were embedded again with the same model. */
export function forgetVectors(contentHash: string): void {
  for (const [key, stored] of cache) {
    if (key.endsWith(`\u0000${contentHash}`)) {
      cache.delete(key);
      cachedFloats -= stored.vectors.reduce((sum, v) => sum + v.length, 0);
    }
  }
}
