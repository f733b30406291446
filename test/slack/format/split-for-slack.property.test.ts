import { describe, expect, it } from 'vitest';
import { splitForSlack } from '../../../src/slack/format';
import { generateMarkdown, seededRandom, type MarkdownShape } from './generate-markdown';
import { splitProblems, withoutWhitespace } from './split-invariants';

const LIMITS = [40, 64, 100, 250, 1000, 4000, 12_000];
const SEEDS = Array.from({ length: 100 }, (_, i) => i + 1);

/** Splits generated text under a seed-chosen limit and reports the first broken invariant, naming the seed. */
function checkSeeds(shape: MarkdownShape, extra?: (text: string, pieces: string[], maxChars: number) => string[]) {
  for (const seed of SEEDS) {
    const random = seededRandom(seed);
    const text = generateMarkdown(random, shape);
    const maxChars = LIMITS[Math.floor(random() * LIMITS.length)]!;
    const pieces = splitForSlack(text, maxChars);
    const problems = [...splitProblems(text, pieces, maxChars), ...(extra?.(text, pieces, maxChars) ?? [])];
    expect(problems, `seed ${seed}, maxChars ${maxChars}, ${text.length} chars in`).toEqual([]);
  }
}

describe('splitForSlack over generated markdown', () => {
  it('keeps plain prose whole: same words in the same order, every cut between words', () => {
    checkSeeds({}, (text, pieces) => {
      const words = (s: string) => s.split(/\s+/).filter(Boolean);
      return JSON.stringify(words(pieces.join(' '))) === JSON.stringify(words(text)) ? [] : ['a word was cut'];
    });
  });

  it('handles words longer than a piece, cutting them only where it must', () => {
    checkSeeds({ longWords: true }, (text, pieces) =>
      withoutWhitespace(pieces.join('')) === withoutWhitespace(text) ? [] : ['content changed'],
    );
  });

  it('handles CJK text without spaces and emoji made of several code points', () => {
    checkSeeds({ cjk: true, emoji: true }, (text, pieces) =>
      withoutWhitespace(pieces.join('')) === withoutWhitespace(text) ? [] : ['content changed'],
    );
  });

  it('handles huge code blocks, unclosed fences and tables, reopening fences with their language', () => {
    checkSeeds({ fences: true, tables: true, longWords: true, emoji: true });
  });

  it('handles everything at once with Windows newlines', () => {
    checkSeeds({ fences: true, tables: true, longWords: true, cjk: true, emoji: true, crlf: true }, (_text, pieces) =>
      pieces.some((piece) => piece.includes('\r')) ? ['a carriage return survived'] : [],
    );
  });

  it('fills pieces: no two neighbouring pieces of prose would have fit in one', () => {
    checkSeeds({}, (_text, pieces, maxChars) =>
      pieces.slice(1).flatMap((piece, i) => (pieces[i]!.length + 2 + piece.length <= maxChars ? [`pieces ${i}/${i + 1} could be one`] : [])),
    );
  });
});
