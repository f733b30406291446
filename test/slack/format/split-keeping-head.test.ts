/**
 * splitKeepingHead: the split the answer writer uses once part of the first message is already streamed. The head
 * stays, whatever the split would have preferred; the first piece ends at the next good boundary that fits; the rest
 * is split like any answer.
 */
import { describe, expect, it } from 'vitest';
import { splitForSlack, splitKeepingHead } from '../../../src/slack/format';

/** The words of a text, so that content can be compared across cuts that drop whitespace or add fence lines. */
const words = (text: string) => text.split(/\s+/).filter((word) => word !== '' && !/^(```|~~~)/.test(word));

describe('splitKeepingHead', () => {
  const prose = `${'A first paragraph that takes up room. '.repeat(3).trim()}\n\n${'The second one runs on and on. '.repeat(5).trim()}`;

  it('is splitForSlack when nothing is kept, or when its first piece already holds the head', () => {
    expect(splitKeepingHead(prose, 200, 0)).toEqual(splitForSlack(prose, 200));
    expect(splitKeepingHead(prose, 200, 40)).toEqual(splitForSlack(prose, 200));
  });

  it('keeps a head that runs past the split’s own cut, and ends the first piece at the next sentence that fits', () => {
    const headLength = prose.indexOf('on and on.') + 'on and'.length; // the stream stopped mid-sentence
    const pieces = splitKeepingHead(prose, 200, headLength);

    expect(splitForSlack(prose, 200)[0]!.length).toBeLessThan(headLength); // the split alone would take text back
    expect(pieces[0]!.startsWith(prose.slice(0, headLength))).toBe(true);
    expect(pieces[0]!.endsWith('on and on.')).toBe(true);
    expect(pieces.every((piece) => piece.length <= 200)).toBe(true);
    expect(pieces[1]!.startsWith('The second')).toBe(true); // no whitespace carried over the cut
    expect(words(pieces.join(' '))).toEqual(words(prose));
  });

  it('inside a code block, ends the first piece at a line, closes the fence there and reopens it with its language', () => {
    const code = `Here is the script:\n\n\`\`\`ts\n${Array.from({ length: 20 }, (_, i) => `const value${i} = compute(${i});`).join('\n')}\n\`\`\`\n\nThat is all.`;
    const headLength = code.indexOf('const value5') + 'const val'.length;
    const pieces = splitKeepingHead(code, 220, headLength);

    expect(pieces[0]!.startsWith(code.slice(0, headLength))).toBe(true);
    expect(pieces[0]).toMatch(/const value\d+ = compute\(\d+\);\n```$/);
    expect(pieces[1]).toMatch(/^```ts\nconst value\d+ = compute/);
    expect(pieces.every((piece) => piece.length <= 220)).toBe(true);
    expect(words(pieces.join('\n'))).toEqual(words(code));
  });

  // splitForSlack's first piece only misses a head it could hold when it renders the head differently: Windows
  // newlines, a fence's info string with a space. Those are the texts where the head's own boundaries matter.

  it('fills only up to the end of the head’s own paragraph, never into a code block that opens after it', () => {
    const text = 'Step one is done.\r\nSetup takes a few steps. Then more.\n```sh\nnpm ci\n```\nDone.';
    const headLength = text.indexOf('a few');
    const pieces = splitKeepingHead(text, 200, headLength);

    expect(splitForSlack(text, 200)).toHaveLength(1); // it fits, but not as written: the head is kept as written
    expect(pieces).toEqual(['Step one is done.\r\nSetup takes a few steps. Then more.', '```sh\nnpm ci\n```\nDone.']);
  });

  it('takes a fence’s closing line along when the head ends with the fence’s last line', () => {
    const text = `Run this:\n\n\`\`\` sh\n${'echo "a long line of shell that repeats"\n'.repeat(4)}\`\`\`\n\n${'Then read the output line by line. '.repeat(3).trim()}`;
    const headLength = text.lastIndexOf('\n```');
    const pieces = splitKeepingHead(text, 200, headLength);

    expect(pieces[0]).toBe(text.slice(0, headLength + '\n```'.length));
    expect(pieces[1]!.startsWith('Then read')).toBe(true);
    expect(pieces.some((piece) => /```sh\n```/.test(piece))).toBe(false); // never an empty code block
  });
});
