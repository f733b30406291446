import type { QueryTerms } from './query-terms';
import { matchedWords } from './select-snippet';

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
  for (let i = 0; i + 1 < words.length; i += 1) {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escape(words[i]!)}[\\p{L}]{0,3}[\\s\\-–]+${escape(words[i + 1]!)}[\\p{L}]{0,3}(?![\\p{L}\\p{N}])`, 'iu');
    const match = pattern.exec(passage);
    if (match) return match[0].replace(/\s+/g, ' ');
  }
  return undefined;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
