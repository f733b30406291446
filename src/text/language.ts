/**
 * Which PostgreSQL text-search configuration stems a chunk. Documents arrive in English, German, French… and a
 * stemmer for the wrong language barely helps, so each chunk is stemmed in the language its function words give away.
 * The query side never needs to know which one was chosen: it is expanded into every configuration listed here
 * (see query-terms.ts), so a chunk matches whichever stemmer indexed it.
 */

/** Snowball configurations shipped with both PostgreSQL 15 and PGlite (PostgreSQL 18), plus 'simple'. */
export const STEMMED_CONFIGS = ['english', 'german', 'french', 'spanish', 'italian', 'portuguese', 'dutch', 'russian'] as const;

export type TextSearchConfig = (typeof STEMMED_CONFIGS)[number] | 'simple';

/**
 * The commonest function words of each language. Short on purpose: detection counts occurrences, and these few
 * words make up a large share of any running text in their language while being rare elsewhere.
 */
const FUNCTION_WORDS: Record<(typeof STEMMED_CONFIGS)[number], string[]> = {
  english: ['the', 'and', 'of', 'to', 'is', 'in', 'that', 'for', 'with', 'are', 'this', 'be', 'by', 'or', 'which', 'from', 'was', 'an', 'it', 'not', 'what', 'how', 'who', 'where', 'when', 'why', 'does', 'do'],
  german: ['der', 'die', 'das', 'und', 'ist', 'nicht', 'ein', 'eine', 'mit', 'den', 'von', 'zu', 'für', 'auf', 'sich', 'dem', 'des', 'wird', 'sind', 'auch', 'was', 'wie', 'welche', 'welcher', 'wer', 'wo', 'wann', 'warum', 'gibt'],
  french: ['le', 'la', 'les', 'et', 'des', 'est', 'une', 'du', 'dans', 'pour', 'que', 'qui', 'sur', 'pas', 'par', 'au', 'avec', 'sont', 'aux', 'ce', 'quel', 'quelle', 'quels', 'quelles', 'comment', 'où', 'pourquoi', 'combien'],
  spanish: ['el', 'los', 'las', 'y', 'del', 'que', 'en', 'por', 'con', 'una', 'para', 'es', 'se', 'al', 'como', 'más', 'pero', 'sus', 'está', 'son'],
  italian: ['il', 'di', 'che', 'della', 'per', 'non', 'sono', 'una', 'gli', 'nel', 'alla', 'dei', 'delle', 'con', 'è', 'anche', 'più', 'questo', 'dal', 'come'],
  portuguese: ['o', 'os', 'da', 'do', 'que', 'em', 'não', 'uma', 'para', 'com', 'dos', 'das', 'na', 'no', 'por', 'é', 'mais', 'ao', 'como', 'são'],
  dutch: ['de', 'het', 'een', 'en', 'van', 'is', 'niet', 'dat', 'op', 'te', 'voor', 'met', 'zijn', 'er', 'ook', 'aan', 'wordt', 'naar', 'bij', 'om'],
  russian: ['и', 'в', 'не', 'на', 'что', 'с', 'по', 'это', 'как', 'к', 'из', 'для', 'от', 'он', 'но', 'же', 'или', 'то', 'его', 'так'],
};

const WORD_TO_LANGUAGES = buildWordIndex();

export interface LanguageGuess {
  config: TextSearchConfig;
  /** Function-word occurrences that voted for `config`; 0 when nothing voted. */
  votes: number;
  words: number;
}

/** Guesses the language of a text from its function words; 'simple' (no stemming) when nothing stands out. */
export function guessTextSearchLanguage(text: string): LanguageGuess {
  const votes = new Map<TextSearchConfig, number>();
  let words = 0;
  for (const match of text.toLowerCase().matchAll(/[\p{L}]+/gu)) {
    words += 1;
    for (const language of WORD_TO_LANGUAGES.get(match[0]) ?? []) votes.set(language, (votes.get(language) ?? 0) + 1);
  }
  let best: LanguageGuess = { config: 'simple', votes: 0, words };
  for (const [config, count] of votes) if (count > best.votes) best = { config, votes: count, words };
  // Two votes, and at least one word in twenty: below that a table row or a title decides by accident.
  if (best.votes < 2 || best.votes * 20 < words) return { config: 'simple', votes: 0, words };
  return best;
}

/** The configuration for a chunk: its own language when it is clear, otherwise the document's. */
export function chooseChunkConfig(chunkText: string, documentConfig: TextSearchConfig): TextSearchConfig {
  const guess = guessTextSearchLanguage(chunkText);
  return guess.config === 'simple' ? documentConfig : guess.config;
}

/** True when `word` is a function word of `config` (or, for 'simple', of English, German or French). */
export function isFunctionWord(word: string, config: TextSearchConfig): boolean {
  const languages = WORD_TO_LANGUAGES.get(word.toLowerCase());
  if (!languages) return false;
  return config === 'simple'
    ? languages.some((language) => language === 'english' || language === 'german' || language === 'french')
    : languages.includes(config);
}

function buildWordIndex(): Map<string, TextSearchConfig[]> {
  const index = new Map<string, TextSearchConfig[]>();
  for (const [language, list] of Object.entries(FUNCTION_WORDS)) {
    for (const word of list) index.set(word, [...(index.get(word) ?? []), language as TextSearchConfig]);
  }
  return index;
}

const SCRIPT_LANGUAGES: Array<[RegExp, string]> = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/gu, 'Japanese'],
  [/\p{Script=Hangul}/gu, 'Korean'],
  [/\p{Script=Han}/gu, 'Chinese'],
  [/\p{Script=Arabic}/gu, 'Arabic'],
];

/**
 * The language a passage is written in, as a word for the model ("German", "Chinese"), or undefined when the text
 * does not give it away. Scripts decide first (a passage a fifth Han characters is Chinese, kana make it
 * Japanese), then function words as for stemming.
 */
export function describeTextLanguage(text: string): string | undefined {
  const letters = (text.match(/\p{L}/gu) ?? []).length;
  if (letters === 0) return undefined;
  for (const [pattern, name] of SCRIPT_LANGUAGES) {
    if ((text.match(pattern) ?? []).length * 5 >= letters) return name;
  }
  const { config } = guessTextSearchLanguage(text);
  return config === 'simple' ? undefined : config[0]!.toUpperCase() + config.slice(1);
}

const CONFIG_NAMES: Record<Exclude<TextSearchConfig, 'simple'>, string> = {
  english: 'English',
  german: 'German',
  french: 'French',
  spanish: 'Spanish',
  italian: 'Italian',
  portuguese: 'Portuguese',
  dutch: 'Dutch',
  russian: 'Russian',
};

/**
 * The language a document is written in, by name ("German", "Chinese"), from its first pages; undefined when it
 * is unclear. Shown beside the file so the model searches it in its own language: a question asked in English
 * about a German document finds far more when its words are German too.
 */
export function describeDocumentLanguage(text: string): string | undefined {
  const sample = text.slice(0, 50_000);
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  if (letters < 40) return undefined;
  // Scripts without spaces between words have no function words to count: their characters tell.
  const kana = sample.match(/[\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0;
  const hangul = sample.match(/\p{Script=Hangul}/gu)?.length ?? 0;
  const han = sample.match(/\p{Script=Han}/gu)?.length ?? 0;
  if (kana > letters * 0.1) return 'Japanese';
  if (hangul > letters * 0.3) return 'Korean';
  if (han > letters * 0.3) return 'Chinese';
  // Stricter than the per-chunk guess, because a wrong name misleads the model for the whole file: a spreadsheet
  // column of "No" is not Portuguese. The winner needs several different function words of its own and a clear lead.
  const votes = new Map<TextSearchConfig, { count: number; distinct: Set<string> }>();
  let words = 0;
  for (const match of sample.toLowerCase().matchAll(/[\p{L}]+/gu)) {
    words += 1;
    for (const language of WORD_TO_LANGUAGES.get(match[0]) ?? []) {
      const vote = votes.get(language) ?? { count: 0, distinct: new Set<string>() };
      vote.count += 1;
      vote.distinct.add(match[0]);
      votes.set(language, vote);
    }
  }
  const ranked = [...votes].sort((a, b) => b[1].count - a[1].count);
  const [best, runnerUp] = ranked;
  if (!best || best[1].distinct.size < 5 || best[1].count * 30 < words) return undefined;
  if (runnerUp && best[1].count < runnerUp[1].count * 1.5) return undefined;
  return best[0] === 'simple' ? undefined : CONFIG_NAMES[best[0]];
}
