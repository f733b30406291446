import type { Embedder } from './embedder';

/**
 * A deterministic embedder with no model behind it: character trigrams of each word, hashed into a fixed number of
 * dimensions. It knows nothing of meaning, but it does see that "Topologie" and "topology", or "rates" and "rated",
 * share most of their letters, which full-text stemming misses across languages. Used by tests and by the bench's
 * hybrid figure so that they run offline; never a stand-in for a real model in production.
 */
export function createHashingEmbedder(dimensions = 256): Embedder {
  return {
    model: `hashing-trigram-${dimensions}`,
    async embed(texts) {
      return texts.map((text) => embedOne(text, dimensions));
    },
  };
}

function embedOne(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const match of text.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '').matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = `^${match[0]}$`;
    const chars = Array.from(word);
    for (let i = 0; i + 3 <= chars.length; i += 1) {
      const hash = fnv1a(chars.slice(i, i + 3).join(''));
      // The sign bit spreads collisions around zero instead of piling them up.
      vector[hash % dimensions]! += hash & 0x8000_0000 ? -1 : 1;
    }
  }
  return vector;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
