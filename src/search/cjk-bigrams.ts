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

/**
 * Question words and particles of Chinese questions: "多少", "什么", "是" say how the question is asked, not what it
 * is about, and as bigrams ("是多", "多少") they match every page that asks or counts anything.
 */
const CJK_QUESTION_WORDS = new Set([
  '的', '是', '了', '吗', '呢', '在', '有', '和', '与', '或', '及', '把', '被', '给', '对', '从', '里', '中', '上', '下',
  '什么', '多少', '哪', '哪些', '哪个', '哪天', '哪里', '几', '谁', '为什么', '为何', '如何', '怎么', '怎样', '是否',
  '有没有', '有无', '没有', '是不是', '这个', '那个', '这', '那', '请问', '一下',
]);
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/**
 * A query's CJK bigrams without the question's scaffolding. A document is indexed with every overlapping bigram; a
 * question need not be: pairs with a question word ("是多", "多少", "的存" in 存货期末有多少) match every page that
 * asks or counts anything. Intl.Segmenter (ICU's dictionary) finds the question words; they break the run, and the
 * rest keeps its overlapping bigrams (so 净|额, which the dictionary splits, still gives 净额). A query of nothing but
 * question words keeps its plain bigrams.
 */
export function toCjkQueryBigrams(query: string): string[] {
  const grams: string[] = [];
  for (const run of query.replace(CJK_GAP, '').matchAll(CJK_RUN)) {
    let kept = '';
    for (const { segment } of segmenter.segment(run[0])) {
      if (!CJK_QUESTION_WORDS.has(segment)) {
        kept += segment;
        continue;
      }
      grams.push(...toCjkBigrams(kept));
      kept = '';
    }
    grams.push(...toCjkBigrams(kept));
  }
  return grams.length > 0 ? grams : toCjkBigrams(query);
}
