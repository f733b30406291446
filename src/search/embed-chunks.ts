import { and, asc, eq, isNull, ne, or, sql } from 'drizzle-orm';
import type { Database } from '../store/database';
import { chunks } from '../store/schema';
import type { Embedder } from './embedder';
import { forgetVectors } from './rank-by-embedding';

/** Chunks embedded per round trip: one request batch of the embedder, and one UPDATE. */
const ROUND = 128;

/**
 * Embeds the chunks of one document that have no vector from `embedder.model` yet, and stores the vectors. Runs
 * after the chunks are written, so full-text search works even while (or if) embedding fails; a later call picks up
 * where a failed one stopped. Returns how many chunks it embedded.
 */
export async function embedMissingChunks(
  db: Database,
  contentHash: string,
  embedder: Embedder,
  signal?: AbortSignal,
): Promise<number> {
  let embedded = 0;
  for (;;) {
    signal?.throwIfAborted();
    const pending = await db
      .select({ id: chunks.id, text: chunks.text })
      .from(chunks)
      .where(
        and(
          eq(chunks.contentHash, contentHash),
          or(isNull(chunks.embeddingModel), ne(chunks.embeddingModel, embedder.model)),
        ),
      )
      .orderBy(asc(chunks.ordinal))
      .limit(ROUND);
    if (pending.length === 0) return embedded;
    const vectors = await embedder.embed(
      pending.map((c) => c.text),
      signal,
    );
    if (vectors.length !== pending.length) {
      throw new Error(`Embedding ${pending.length} chunks of ${contentHash} with ${embedder.model} returned ${vectors.length} vectors`);
    }
    // One UPDATE per round: a statement per chunk costs more than the embedding itself on PGlite.
    const rows = JSON.stringify(pending.map((chunk, i) => ({ id: chunk.id, v: vectors[i] })));
    await db.execute(sql`
      update chunks set embedding = v.embedding, embedding_model = ${embedder.model}
      from (
        select (e ->> 'id')::bigint as id, array(select x::real from jsonb_array_elements_text(e -> 'v') as x) as embedding
        from jsonb_array_elements(${rows}::jsonb) as e
      ) as v
      where chunks.id = v.id
    `);
    embedded += pending.length;
    forgetVectors(contentHash);
    if (pending.length < ROUND) return embedded;
  }
}

