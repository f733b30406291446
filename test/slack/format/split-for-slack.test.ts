import { describe, expect, it } from 'vitest';
import { splitForSlack } from '../../../src/slack/format';

describe('splitForSlack: what fits stays whole', () => {
  it('returns short text as one piece, and nothing for empty text', () => {
    expect(splitForSlack('Just one line.', 100)).toEqual(['Just one line.']);
    expect(splitForSlack('', 100)).toEqual([]);
    expect(splitForSlack(' \n\n \t', 100)).toEqual([]);
  });

  it('drops blank lines at the edges but keeps the inside as written', () => {
    expect(splitForSlack('\n\n# Title\n\nbody\n\n', 100)).toEqual(['# Title\n\nbody']);
  });

  it('refuses a limit that cannot hold a character', () => {
    expect(() => splitForSlack('text', 1)).toThrow(RangeError);
    expect(() => splitForSlack('text', 2.5)).toThrow(RangeError);
  });
});

describe('splitForSlack: where it cuts', () => {
  it('prefers a paragraph break', () => {
    const text = 'First paragraph, line one.\nLine two.\n\nSecond paragraph.';
    expect(splitForSlack(text, 40)).toEqual(['First paragraph, line one.\nLine two.', 'Second paragraph.']);
  });

  it('then a line break', () => {
    expect(splitForSlack('- apples and pears\n- oranges\n- plums and cherries', 30)).toEqual([
      '- apples and pears\n- oranges',
      '- plums and cherries',
    ]);
  });

  it('then the end of a sentence', () => {
    expect(splitForSlack('The build failed. The cache was cold and the runner slow.', 30)).toEqual([
      'The build failed.',
      'The cache was cold and the',
      'runner slow.',
    ]);
  });

  it('then a space, never the middle of a word', () => {
    expect(splitForSlack('alpha beta gamma delta epsilon', 12)).toEqual(['alpha beta', 'gamma delta', 'epsilon']);
  });

  it('cuts a word only when it is longer than a whole piece', () => {
    expect(splitForSlack(`see ${'x'.repeat(25)} now`, 10)).toEqual(['see', 'xxxxxxxxxx', 'xxxxxxxxxx', 'xxxxx now']);
  });

  it('keeps a nested list item indented after a cut', () => {
    expect(splitForSlack('- parent item here\n  - child item', 20)).toEqual(['- parent item here', '  - child item']);
  });

  it('keeps inline code and links whole when a space outside them will do', () => {
    expect(splitForSlack('run `npm run build --watch` now', 24)).toEqual(['run', '`npm run build --watch`', 'now']);
    // "read [the full" would fit the first piece, but would break the link.
    expect(splitForSlack('read [the full guide](https://example.com/g) first', 40)).toEqual([
      'read',
      '[the full guide](https://example.com/g)',
      'first',
    ]);
  });
});

describe('splitForSlack: code fences', () => {
  it('keeps a fence that fits whole, even when that means starting a new piece', () => {
    const text = 'Intro line that is long enough.\n\n```ts\nconst a = 1;\n```';
    expect(splitForSlack(text, 40)).toEqual(['Intro line that is long enough.', '```ts\nconst a = 1;\n```']);
  });

  it('closes a fence that must be split and reopens it with its language', () => {
    const code = ['```python', 'def a():', '    return 1', '', 'def b():', '    return 2', '```'].join('\n');
    expect(splitForSlack(code, 36)).toEqual([
      '```python\ndef a():\n    return 1\n```',
      '```python\ndef b():\n    return 2\n```',
    ]);
  });

  it('keeps the fence characters it was opened with, and fences inside it are only text', () => {
    expect(splitForSlack('~~~~md\n```js\nx()\n```\nmore text\n~~~~', 30)).toEqual([
      '~~~~md\n```js\nx()\n```\n~~~~',
      '~~~~md\nmore text\n~~~~',
    ]);
  });

  it('cuts a code line longer than a piece between characters, still inside fences', () => {
    const pieces = splitForSlack('```\n' + 'x'.repeat(30) + '\n```', 18);
    expect(pieces).toEqual(['```\nxxxxxxxxxx\n```', '```\nxxxxxxxxxx\n```', '```\nxxxxxxxxxx\n```']);
  });

  it('closes a fence the text never closed', () => {
    expect(splitForSlack('Look:\n```sh\nls -la', 100)).toEqual(['Look:\n```sh\nls -la\n```']);
  });

  it('refuses a limit too small for the fence lines themselves', () => {
    expect(() => splitForSlack('```\nsome code\nmore code\n```', 8)).toThrow(RangeError);
  });
});

describe('splitForSlack: tables', () => {
  it('repeats the header row in the next piece', () => {
    const table = ['| id | name |', '|----|------|', '| 1 | Ana |', '| 2 | Bo |', '| 3 | Cy |', '| 4 | Di |'].join('\n');
    expect(splitForSlack(table, 60)).toEqual([
      '| id | name |\n|----|------|\n| 1 | Ana |\n| 2 | Bo |',
      '| id | name |\n|----|------|\n| 3 | Cy |\n| 4 | Di |',
    ]);
  });

  it('cuts a table like prose when its header would take most of each piece', () => {
    const table = ['| identifier | full name |', '|---|---|', '| 1 | Ana |', '| 2 | Bo |'].join('\n');
    expect(splitForSlack(table, 40)).toEqual(['| identifier | full name |\n|---|---|', '| 1 | Ana |\n| 2 | Bo |']);
  });
});

describe('splitForSlack: scripts and characters', () => {
  it('cuts Japanese after a full stop when one is near, else between words', () => {
    expect(splitForSlack('今日は良い天気です。明日も晴れるでしょう。', 12)).toEqual(['今日は良い天気です。', '明日も晴れるでしょう。']);
    expect(splitForSlack('日本語のテキストを分割します', 10)).toEqual(['日本語のテキストを', '分割します']);
  });

  it('never cuts an emoji, a flag or a family in half', () => {
    const text = '👍🏽🇯🇵👩‍👩‍👧‍👦'.repeat(3);
    const pieces = splitForSlack(text, 12);
    expect(pieces).toEqual(['👍🏽🇯🇵', '👩‍👩‍👧‍👦', '👍🏽🇯🇵', '👩‍👩‍👧‍👦', '👍🏽🇯🇵', '👩‍👩‍👧‍👦']);
  });

  it('never leaves half a surrogate pair, even where a character is all that fits', () => {
    expect(splitForSlack('😀😀😀', 3)).toEqual(['😀', '😀', '😀']);
  });

  it('reads Windows newlines as newlines', () => {
    expect(splitForSlack('one two\r\n\r\nthree\r\nfour', 12)).toEqual(['one two', 'three\nfour']);
  });
});

describe('splitForSlack: odd layouts', () => {
  it('drops indentation that would not leave room for the line itself', () => {
    const code = '```\nstart\n' + ' '.repeat(60) + 'deeply indented line\n```';
    expect(splitForSlack(code, 40)).toEqual(['```\nstart\n```', '```\ndeeply indented line\n```']);
  });
});
