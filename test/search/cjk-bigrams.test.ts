import { describe, expect, it } from 'vitest';
import { containsCjk, toCjkBigrams } from '../../src/search/cjk-bigrams';

describe('toCjkBigrams', () => {
  it('turns each run of CJK characters into overlapping pairs', () => {
    expect(toCjkBigrams('营业收入')).toEqual(['营业', '业收', '收入']);
  });

  it('keeps a lone character, so a one-character word is still indexed', () => {
    expect(toCjkBigrams('税 2018')).toEqual(['税']);
  });

  it('joins characters across a line wrap, which is layout and not a word boundary', () => {
    expect(toCjkBigrams('内容的真\n实')).toContain('真实');
  });

  it('does not pair across other scripts or punctuation', () => {
    expect(toCjkBigrams('H股发行，第1季度')).toEqual(['股发', '发行', '第', '季度']);
  });

  it('handles Japanese kana and Korean hangul too', () => {
    expect(toCjkBigrams('テスト')).toEqual(['テス', 'スト']);
    expect(toCjkBigrams('한국어')).toEqual(['한국', '국어']);
    expect(containsCjk('plain English')).toBe(false);
  });
});
