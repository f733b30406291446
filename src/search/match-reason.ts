import type { QueryTerms } from './query-terms';
import { matchedWords, wordsOf } from './select-snippet';

/** Words named in a reason at most: enough to judge a hit, short enough for five hits in a tool result. */
const MAX_WORDS = 6;

/**
 * Why a passage came up, in a few words the model can judge it by: which of the query's words it holds, whether two
 * of them stand together as in the query (a phrase), and which phrasing found it when several were sent. A passage
 * found by meaning alone (embeddings) holds none of the words, and says so.
 */
export function describeMatch(passage: string, phrasings: Array<{ text: string; terms: QueryTerms }>): string {
  const parts: string[] = [];
  const found: number[] = [];
  const words = new Map<string, string>();
  phrasings.forEach((phrasing, i) => {
    const matched = matchedWords(passage, phrasing.terms);
    if (matched.length === 0) return;
    found.push(i + 1);
    for (const word of matched) if (!words.has(word.toLowerCase())) words.set(word.toLowerCase(), word);
  });
  if (words.size === 0) return 'by meaning: none of the query words appear';
  const list = [...words.values()];
  parts.push(`words ${list.slice(0, MAX_WORDS).map((w) => `«${w}»`).join(' ')}${list.length > MAX_WORDS ? ` +${list.length - MAX_WORDS}` : ''}`);
  const phrase = phrasings.map((p) => findPhrase(passage, p.terms.words)).find(Boolean);
  if (phrase) parts.push(`phrase «${phrase}»`);
  if (phrasings.length > 1) parts.push(`from phrasing ${found.join(', ')} of ${phrasings.length}`);
  return parts.join('; ');
}

/** Two query words next to each other in the passage, in the query's order ("lion air", "Survey Monkey"). */
function findPhrase(passage: string, words: string[]): string | undefined {
  if (words.length < 2) return undefined;
  const wanted = words.map(foldWord);
  const found = wordsOf(passage);
  for (let i = 0; i + 1 < wanted.length; i += 1) {
    for (let j = 0; j + 1 < found.length; j += 1) {
      // Each word as in the query, or with up to three letters more ("network" → "networks"), and only spaces or
      // a hyphen between them.
      if (!standsFor(found[j]!.folded, wanted[i]!) || !standsFor(found[j + 1]!.folded, wanted[i + 1]!)) continue;
      if (!/^[\s\-–]+$/.test(passage.slice(found[j]!.end, found[j + 1]!.start))) continue;
      return passage.slice(found[j]!.start, found[j + 1]!.end).replace(/\s+/g, ' ');
    }
  }
  return undefined;
}

function standsFor(passageWord: string, queryWord: string): boolean {
  return passageWord.startsWith(queryWord) && passageWord.length - queryWord.length <= 3 && /^\p{L}*$/u.test(passageWord.slice(queryWord.length));
}

function foldWord(word: string): string {
  return word.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');
}
