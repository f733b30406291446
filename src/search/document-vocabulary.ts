import type { Database } from '../store/database';
import { loadChunkIndex, type ChunkIndex } from './chunk-index';

/**
 * The words a document's index holds (its lexemes, as stemmed when indexed), so a query word can be matched to
 * the document's own spelling of it, accents aside ("securite" → sécur), and a word the document does not contain
 * to words it does: a typo or a cognate ("Sierpinski" → sierpińskiraum, "parametrised" →
 * parametrisiert, "attack" → attaqu) by shared letter trigrams, and a German compound to its parts ("Domainnamen" →
 * domain + nam, "Finanzierungsprogramm" → programm). A fallback only: a word the document has is never expanded.
 */
export interface Vocabulary {
  /** Folded lexeme (lower case, no accents) → the lexemes as stored. */
  byFolded: Map<string, string[]>;
  folded: string[];
  /** Trigram → indexes into `folded`. */
  trigrams: Map<string, number[]>;
  /** Acronyms the document spells out ("Long short-term memory (LSTM)"): lower-cased acronym → its words. */
  acronyms: Map<string, string[]>;
}

/** A lexeme a query word stands for in this document, with how much a match on it counts (1 = the word itself). */
export interface Expansion {
  /** The query word (index into QueryTerms.words) the lexeme stands in for, or a new term for a compound part. */
  word: number;
  part?: number;
  lexeme: string;
  weight: number;
  /**
   * Set for a spelled-out acronym: the lexemes of each of its words. A chunk matches when it holds every word (one
   * of each word's lexemes), as often as the rarest; `lexeme` only names the expansion then.
   */
  together?: string[][];
}

/** Built once per document index (which is itself cached): the index never changes for a content hash. */
const built = new WeakMap<ChunkIndex, Vocabulary>();
/** Dice similarity of letter trigrams a fuzzy match needs. */
const MIN_SIMILARITY = 0.6;
/** Fuzzy lexemes per query word: the closest few, so one odd word cannot flood the query. */
const MAX_FUZZY = 3;
const FUZZY_WEIGHT = 0.5;
const PART_WEIGHT = 0.5;
const MIN_FUZZY_CHARS = 5;
const MIN_COMPOUND_CHARS = 9;
const MIN_PART_CHARS = 4;

export async function loadVocabulary(db: Database, contentHash: string): Promise<Vocabulary> {
  return vocabularyOf(await loadChunkIndex(db, contentHash));
}

/** The index's word lexemes, folded and by trigram. */
export function vocabularyOf(index: ChunkIndex): Vocabulary {
  const known = built.get(index);
  if (known) return known;
  const byFolded = new Map<string, string[]>();
  for (const word of index.words.keys()) {
    if (/\d/.test(word)) continue;
    const key = fold(word);
    const list = byFolded.get(key);
    if (list) list.push(word);
    else byFolded.set(key, [word]);
  }
  const folded = [...byFolded.keys()];
  const trigrams = new Map<string, number[]>();
  folded.forEach((word, i) => {
    for (const gram of trigramsOf(word)) {
      const list = trigrams.get(gram);
      if (list) list.push(i);
      else trigrams.set(gram, [i]);
    }
  });
  const vocabulary = { byFolded, folded, trigrams, acronyms: findAcronyms(index) };
  built.set(index, vocabulary);
  return vocabulary;
}

/** A definition: some words, then in parentheses the capitals they stand for ("Recurrent Neural Networks (RNNs)"). */
const DEFINITION = /((?:[\p{L}][\p{L}-]*\s+){1,8})\((\p{Lu}[\p{L}]{1,7})\)/gu;

/** The acronyms the document's text spells out, each with the words it stands for (their initials are its letters). */
function findAcronyms(index: ChunkIndex): Map<string, string[]> {
  const acronyms = new Map<string, string[]>();
  for (const chunk of index.chunks) {
    for (const [, before, acronym] of chunk.text.matchAll(DEFINITION)) {
      const letters = acronym!.replace(/s$/, '').toLowerCase();
      const key = acronym!.toLowerCase();
      if (acronyms.has(key) || !/^\p{Lu}{2,}s?$/u.test(acronym!)) continue;
      const words = spelledOut(before!.trim().split(/\s+/), letters);
      if (words) {
        acronyms.set(key, words);
        if (key !== letters) acronyms.set(letters, words);
      }
    }
  }
  return acronyms;
}

/** The last words before the parenthesis whose initials (a hyphenated word's parts each count) spell the acronym. */
function spelledOut(words: string[], letters: string): string[] | undefined {
  let initials = '';
  for (let from = words.length - 1; from >= 0; from -= 1) {
    initials = words[from]!.split('-').filter(Boolean).map((part) => part[0]!.toLowerCase()).join('') + initials;
    if (initials === letters) return words.slice(from).flatMap((word) => word.toLowerCase().split('-').filter(Boolean));
    if (!letters.endsWith(initials)) return undefined;
  }
  return undefined;
}

/**
 * The words an acronym of the query stands for in the documents searched: "LSTM" → long, short, term, memory when
 * a document writes "Long short-term memory (LSTM)", so a passage that names the thing in full is found too.
 */
export function spellOutAcronyms(vocabularies: Vocabulary[], words: string[]): Array<{ word: number; parts: string[] }> {
  return words.flatMap((word, index) => {
    const parts = vocabularies.map((v) => v.acronyms.get(word)).find(Boolean);
    return parts ? [{ word: index, parts }] : [];
  });
}

/** Lexemes standing in for the query words a document lacks, merged over the documents searched. */
export function expandWords(vocabularies: Vocabulary[], words: string[]): Expansion[] {
  const expansions: Expansion[] = [];
  words.forEach((word, index) => {
    const key = fold(word);
    if (key.length < MIN_PART_CHARS || /\d/.test(key)) return;
    for (const vocabulary of vocabularies) {
      const accented = sameLetters(vocabulary, key);
      // Written with or without its accents ("securite", "Sécurité"): the document's spelling counts as the word.
      for (const lexeme of accented) expansions.push({ word: index, lexeme, weight: 1 });
      if (accented.length > 0 || key.length < MIN_FUZZY_CHARS) continue;
      for (const lexeme of closest(vocabulary, key)) expansions.push({ word: index, lexeme, weight: FUZZY_WEIGHT });
      if (key.length < MIN_COMPOUND_CHARS) continue;
      splitCompound(vocabulary, key).forEach((lexemes, part) => {
        for (const lexeme of lexemes) expansions.push({ word: index, part: part + 1, lexeme, weight: PART_WEIGHT });
      });
    }
  });
  return expansions;
}

/**
 * The document's lexemes for the word, accents aside: the word itself or a stem of it (a lexeme the word starts
 * with, at most three letters shorter), longest first. Empty when the document does not have the word.
 */
function sameLetters(vocabulary: Vocabulary, key: string): string[] {
  for (let length = key.length; length >= Math.max(MIN_PART_CHARS, key.length - 3); length -= 1) {
    const lexemes = vocabulary.byFolded.get(key.slice(0, length));
    if (lexemes) return lexemes;
  }
  return [];
}

function closest(vocabulary: Vocabulary, key: string): string[] {
  const grams = trigramsOf(key);
  const shared = new Map<number, number>();
  for (const gram of grams) for (const i of vocabulary.trigrams.get(gram) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
  const scored: Array<{ i: number; similarity: number }> = [];
  for (const [i, count] of shared) {
    const other = trigramsOf(vocabulary.folded[i]!).size;
    const similarity = (2 * count) / (grams.size + other);
    if (similarity >= MIN_SIMILARITY) scored.push({ i, similarity });
  }
  return scored
    .sort((a, b) => b.similarity - a.similarity || a.i - b.i)
    .slice(0, MAX_FUZZY)
    .flatMap(({ i }) => vocabulary.byFolded.get(vocabulary.folded[i]!)!);
}

/**
 * A compound's two parts as the document's lexemes, when it has both or one of them: "finanzierungsprogramm" →
 * [[], ['programm']]. The split point is the one whose parts the document holds best; a German linking s goes.
 */
function splitCompound(vocabulary: Vocabulary, key: string): string[][] {
  let best: string[][] = [];
  let bestFound = 0;
  for (let at = MIN_PART_CHARS; at <= key.length - MIN_PART_CHARS; at += 1) {
    const head = key.slice(0, at);
    const parts = [head.endsWith('s') && head.length > MIN_PART_CHARS ? head.slice(0, -1) : head, key.slice(at)];
    const lexemes = parts.map((part) => stemsOf(vocabulary, part));
    const found = lexemes.filter((l) => l.length > 0).reduce((sum, l, i) => sum + parts[i]!.length, 0);
    if (found > bestFound) {
      best = lexemes;
      bestFound = found;
    }
  }
  return best;
}

function stemsOf(vocabulary: Vocabulary, part: string): string[] {
  for (let length = part.length; length >= Math.max(MIN_PART_CHARS, part.length - 2); length -= 1) {
    const lexemes = vocabulary.byFolded.get(part.slice(0, length));
    if (lexemes) return lexemes;
  }
  return [];
}

function trigramsOf(word: string): Set<string> {
  const padded = `^${word}$`;
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i += 1) grams.add(padded.slice(i, i + 3));
  return grams;
}

/** Lower case without accents: "Sierpiński" and "sierpinski" compare equal. */
function fold(word: string): string {
  return word.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');
}
