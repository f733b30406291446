import { and, asc, eq, isNull, ne, or, sql } from 'drizzle-orm';
import type { Database } from '../../store/db';
import { chunks } from '../../store/schema';
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
    await db.transaction(async (tx) => {
      for (const [i, chunk] of pending.entries()) {
        await tx
          .update(chunks)
          .set({ embedding: vectors[i]!, embeddingModel: embedder.model })
          .where(eq(chunks.id, chunk.id));
      }
    });
    embedded += pending.length;
    forgetVectors(contentHash);
    if (pending.length < ROUND) return embedded;
  }
}

/** True when every chunk of the document carries a vector of this model. */
export async function hasAllEmbeddings(db: Database, contentHash: string, model: string): Promise<boolean> {
  const [row] = await db
    .select({ missing: sql<number>`count(*)` })
    .from(chunks)
    .where(
      and(eq(chunks.contentHash, contentHash), or(isNull(chunks.embeddingModel), ne(chunks.embeddingModel, model))),
    );
  return Number(row?.missing ?? 0) === 0;
}
