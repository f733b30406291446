/**
 * Chinese, Japanese and Korean text has no spaces, so PostgreSQL's parser sees a whole sentence as one "word" and
 * a search for 营业收入 would never match it. Overlapping character bigrams are the classic fix (as in Lucene's
 * CJKBigramFilter): 营业收入增长 → 营业 业收 收入 入增 增长. A query's bigrams then match wherever its characters
 * appear next to each other in the text, without a dictionary.
 */

/** Han, kana and Hangul: the scripts written without spaces between words. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆]+/gu;
/**
 * Whitespace between two CJK characters is layout (a PDF line wrap, a table cell gap), not a word boundary: 真实
 * broken over two lines is still 真实.
 */
const CJK_GAP = /(?<=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆])\s+(?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆])/gu;

/** True when the text holds any CJK character. */
export function containsCjk(text: string): boolean {
  CJK_RUN.lastIndex = 0;
  return CJK_RUN.test(text);
}

/**
 * Bigrams of every CJK run in the text, in order (duplicates kept, so term frequency survives). A run of one
 * character yields that character alone, so 税 on its own is still indexed.
 */
export function toCjkBigrams(text: string): string[] {
  const grams: string[] = [];
  for (const match of text.replace(CJK_GAP, '').matchAll(CJK_RUN)) {
    const chars = Array.from(match[0]);
    if (chars.length === 1) grams.push(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i += 1) grams.push(chars[i]! + chars[i + 1]!);
  }
  return grams;
}

/** The text with its CJK runs blanked out, for the word-based side of search. */
export function withoutCjk(text: string): string {
  return text.replace(CJK_RUN, ' ');
}
