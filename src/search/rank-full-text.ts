import type { ChunkIndex, ChunkRow } from './chunk-index';
import type { Expansion } from './document-vocabulary';
import type { QueryTerms } from './query-terms';

export interface RankedChunk {
  id: number;
  score: number;
  /** The chunk itself, from the index: the rerank and the hits need no second read. */
  row: ChunkRow;
}

/** BM25's usual constants; b is lower than the textbook 0.75 because chunks are already of similar length. */
const K1 = 1.2;
const B = 0.5;
/** CJK bigram terms score this share of a word term: a two-character name carries less than a whole word. */
const BIGRAM_WEIGHT = 0.6;

/** One lexeme that counts for a query term, with how much a match on it counts. */
interface Alternative {
  term: number;
  lexeme: string;
  cjk: boolean;
  weight: number;
  together?: string[][];
}

/**
 * Full-text ranking of the chunks of some documents, over their in-memory indexes (chunk-index.ts). Scoring is
 * BM25, because for questions in natural language the rare words ("Hausdorff", "17221") are what find the passage.
 * Any term may match (OR), and chunks matching more and rarer terms rank first, so there is no empty AND result to
 * fall back from.
 *
 * Each query word counts as one term whichever of its lexemes matches (`stems`: the word in every configuration,
 * see stem-words.ts): the chunk was stemmed in one language, and the query does not need to know which. A fuzzy
 * lexeme (an expansion) counts for its query word, a compound part is a term of its own.
 */
export function rankByFullText(
  indexes: ChunkIndex[],
  terms: QueryTerms,
  stems: ReadonlyMap<string, string[]>,
  limit: number,
  expansions: Expansion[] = [],
): RankedChunk[] {
  if (indexes.length === 0 || (terms.words.length === 0 && terms.bigrams.length === 0)) return [];
  const alternatives = listAlternatives(terms, stems, expansions);
  let n = 0;
  let tokens = 0;
  for (const index of indexes) {
    n += index.chunks.length;
    tokens += index.tokens;
  }
  const avgTokens = Math.max(n ? tokens / n : 0, 1);
  const scored: RankedChunk[] = [];
  // Per term: the chunks it matched with their best tf and weight over the term's lexemes (keyed index·chunk).
  const byTerm = new Map<number, Map<number, { index: number; chunk: number; tf: number; weight: number; cjk: boolean }>>();
  for (const alternative of alternatives) {
    let matched = byTerm.get(alternative.term);
    indexes.forEach((index, i) => {
      const postings = alternative.together
        ? postingsOfAll(index, alternative.together)
        : (alternative.cjk ? index.grams : index.words).get(alternative.lexeme);
      if (!postings) return;
      if (!matched) byTerm.set(alternative.term, (matched = new Map()));
      for (let p = 0; p < postings.length; p += 2) {
        const key = i * 1_000_000_000 + postings[p]!;
        const seen = matched.get(key);
        if (seen) {
          seen.tf = Math.max(seen.tf, postings[p + 1]!);
          seen.weight = Math.max(seen.weight, alternative.weight);
        } else {
          matched.set(key, { index: i, chunk: postings[p]!, tf: postings[p + 1]!, weight: alternative.weight, cjk: alternative.cjk });
        }
      }
    });
  }
  const scores = new Map<number, { index: number; chunk: number; score: number }>();
  for (const matched of byTerm.values()) {
    const df = matched.size;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const [key, m] of matched) {
      const length = indexes[m.index]!.chunks[m.chunk]!.tokens;
      const part = (m.cjk ? BIGRAM_WEIGHT : m.weight) * idf * (m.tf * (K1 + 1)) / (m.tf + K1 * (1 - B + B * length / avgTokens));
      const entry = scores.get(key);
      if (entry) entry.score += part;
      else scores.set(key, { index: m.index, chunk: m.chunk, score: part });
    }
  }
  for (const { index, chunk, score } of scores.values()) {
    const row = indexes[index]!.chunks[chunk]!;
    scored.push({ id: row.id, score, row });
  }
  return scored.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, limit);
}

/** Every lexeme that counts for a term of the query: the words' stems, bare numbers' signed form, bigrams, expansions. */
function listAlternatives(terms: QueryTerms, stems: ReadonlyMap<string, string[]>, expansions: Expansion[]): Alternative[] {
  const alternatives: Alternative[] = [];
  const exact = new Set<string>();
  terms.words.forEach((word, i) => {
    const lexemes = [...(stems.get(word) ?? [])];
    // A bare number in the text may have been read as a signed integer ("2020-17221" → '2020', '-17221').
    if (/^[0-9]+$/.test(word)) lexemes.push(`-${word}`);
    for (const lexeme of new Set(lexemes)) {
      alternatives.push({ term: i + 1, lexeme, cjk: false, weight: 1 });
      exact.add(lexeme);
    }
  });
  terms.bigrams.forEach((gram, i) => alternatives.push({ term: 1000 + i + 1, lexeme: gram, cjk: true, weight: 1 }));
  for (const e of expansions) {
    if (exact.has(e.lexeme)) continue;
    const alternative: Alternative = { term: e.part ? 2000 + e.word * 10 + e.part : e.word + 1, lexeme: e.lexeme, cjk: false, weight: e.weight };
    if (e.together) alternative.together = e.together;
    alternatives.push(alternative);
  }
  return alternatives;
}

/** Chunks holding every one of several words (each one of its lexemes), in the postings' [chunk, tf] form. */
function postingsOfAll(index: ChunkIndex, words: string[][]): number[] | undefined {
  let common: Map<number, number> | undefined;
  for (const lexemes of words) {
    const found = new Map<number, number>();
    for (const lexeme of lexemes) {
      const postings = index.words.get(lexeme) ?? [];
      for (let p = 0; p < postings.length; p += 2) {
        const chunk = postings[p]!;
        if (common && !common.has(chunk)) continue;
        const tf = Math.min(postings[p + 1]!, common?.get(chunk) ?? Infinity);
        found.set(chunk, Math.max(found.get(chunk) ?? 0, tf));
      }
    }
    if (found.size === 0) return undefined;
    common = found;
  }
  return common && [...common].flat();
}

/** A PostgreSQL array literal, so the whole list travels as one parameter on both drivers. */
export function toArrayLiteral(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}
