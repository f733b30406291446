import { toCjkQueryBigrams, withoutCjk } from './cjk-bigrams';
import { guessTextSearchLanguage, isFunctionWord } from '../text/language';

/**
 * A search query as terms. Words are kept as the person wrote them (lower-cased); the database stems each one in
 * every supported language when it ranks (rank-full-text.ts). CJK parts become character bigrams, as they were
 * indexed, but only inside the query's words (see toCjkQueryBigrams). Function words ("the", "der", "le") go, unless nothing else is left.
 */
export interface QueryTerms {
  words: string[];
  bigrams: string[];
}

// Letters and digits; decimal numbers ("12.5") stay whole because PostgreSQL's parser keeps them whole as well.
const WORD = /\d+(?:[.,]\d+)+|[\p{L}\p{N}]+/gu;

export function parseQuery(query: string): QueryTerms {
  const plain = withoutCjk(query);
  const all = unique(Array.from(plain.toLowerCase().matchAll(WORD), (m) => m[0]));
  const language = guessTextSearchLanguage(plain).config;
  const content = all.filter((word) => !isFunctionWord(word, language));
  return { words: content.length > 0 ? content : all, bigrams: unique(toCjkQueryBigrams(query)) };
}

export function isEmptyQuery(terms: QueryTerms): boolean {
  return terms.words.length === 0 && terms.bigrams.length === 0;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
