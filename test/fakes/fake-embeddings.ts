/**
 * Deterministic fake embeddings: a hashed bag of character trigrams (and whole words), signed, L2-normalised.
 * Texts that share many trigrams ("reset the password" / "password reset") get a high cosine similarity; texts
 * that share none sit near 0. No meaning is modelled — synonyms are not similar — but retrieval code can be
 * tested for ranking by overlap, and the same text always gives the same vector, across runs and processes.
 */

export const DEFAULT_EMBEDDING_DIMS = 64;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export function fakeEmbedding(text: string, dims = DEFAULT_EMBEDDING_DIMS): number[] {
  const vector = new Array<number>(dims).fill(0);
  const normal = ` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `;
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    // The sign from other bits of the hash keeps unrelated features from piling up on the positive side.
    vector[hash % dims]! += (hash & 0x80000000 ? -1 : 1) * weight;
  };
  for (let i = 0; i + 3 <= normal.length; i += 1) add(normal.slice(i, i + 3), 1);
  for (const word of normal.match(/[\p{L}\p{N}]+/gu) ?? []) add(`w:${word}`, 2);
  const norm = Math.hypot(...vector);
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((v) => v / norm);
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) dot += a[i]! * b[i]!;
  return dot;
}

/** The SDK asks for `encoding_format: 'base64'` by default: little-endian float32, base64. */
export function toBase64Float32(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('base64');
}
