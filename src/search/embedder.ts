/**
 * Turns texts into vectors for the semantic half of search. One implementation talks to the OpenAI-compatible
 * endpoint (openai-embedder.ts); the hashing one (hashing-embedder.ts) is deterministic and offline.
 */
export interface Embedder {
  /** Stored beside each vector: vectors of different models are never compared. */
  readonly model: string;
  /** One vector per text, in order. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

/** Cosine similarity; 0 when either vector is all zeros or the lengths differ. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
