import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../src/slack/format';

describe('markdownToMrkdwn: inline formatting', () => {
  it.each([
    ['**bold**', '*bold*'],
    ['__bold__', '*bold*'],
    ['*italic*', '_italic_'],
    ['_italic_', '_italic_'],
    ['***both***', '*_both_*'],
    ['~~gone~~', '~gone~'],
    ['**bold** and *italic* in one line', '*bold* and _italic_ in one line'],
    ['**a _nested_ italic**', '*a _nested_ italic*'],
  ])('%s → %s', (markdown, mrkdwn) => {
    expect(markdownToMrkdwn(markdown)).toBe(mrkdwn);
  });

  it('leaves asterisks and underscores that are not emphasis alone', () => {
    expect(markdownToMrkdwn('snake_case_name, 2*3*4 and a * b')).toBe('snake_case_name, 2*3*4 and a * b');
  });

  it('turns backslash escapes into the plain character', () => {
    expect(markdownToMrkdwn('\\*not italic\\* and \\# not a heading')).toBe('*not italic* and # not a heading');
  });
});

describe('markdownToMrkdwn: links and images', () => {
  it('turns [text](url) into <url|text>', () => {
    expect(markdownToMrkdwn('Read [the docs](https://example.com/docs).')).toBe('Read <https://example.com/docs|the docs>.');
  });

  it('keeps underscores in URLs and formats the label', () => {
    expect(markdownToMrkdwn('[**Run** book](https://example.com/a_b_c)')).toBe('<https://example.com/a_b_c|*Run* book>');
    expect(markdownToMrkdwn('see https://example.com/_private_/x')).toBe('see https://example.com/_private_/x');
  });

  it('escapes & in a link the way Slack stores it', () => {
    expect(markdownToMrkdwn('[q](https://example.com/?a=1&b=2)')).toBe('<https://example.com/?a=1&amp;b=2|q>');
  });

  it('handles parentheses inside URLs and link titles', () => {
    expect(markdownToMrkdwn('[Foo](https://en.wikipedia.org/wiki/Foo_(bar) "Foo")')).toBe('<https://en.wikipedia.org/wiki/Foo_(bar)|Foo>');
  });

  it('turns an image into a link to it', () => {
    expect(markdownToMrkdwn('![build graph](https://example.com/graph.png)')).toBe('<https://example.com/graph.png|build graph>');
    expect(markdownToMrkdwn('![](https://example.com/graph.png)')).toBe('<https://example.com/graph.png>');
  });

  it('shows only the label of a relative link, which has nowhere to go in Slack', () => {
    expect(markdownToMrkdwn('see [setup](docs/setup.md)')).toBe('see setup');
  });

  it('keeps Slack links that are already mrkdwn', () => {
    expect(markdownToMrkdwn('<https://example.com|example> in <#C0123|general>')).toBe('<https://example.com|example> in <#C0123|general>');
  });
});

describe('markdownToMrkdwn: blocks', () => {
  it('turns headings into bold lines', () => {
    expect(markdownToMrkdwn('# Summary\n## Next **steps** ##\ntext')).toBe('*Summary*\n*Next steps*\ntext');
    expect(markdownToMrkdwn('Title\n=====\nbody')).toBe('*Title*\nbody');
  });

  it('turns bullets into "• " and keeps nesting', () => {
    expect(markdownToMrkdwn('- one\n* two\n  + nested *it*')).toBe('• one\n• two\n  ◦ nested _it_');
  });

  it('keeps numbered lists, and shows task lists as boxes', () => {
    expect(markdownToMrkdwn('1. first\n2) second')).toBe('1. first\n2. second');
    expect(markdownToMrkdwn('- [ ] todo\n- [x] done')).toBe('☐ todo\n☑ done');
  });

  it('keeps blockquotes and formats inside them', () => {
    expect(markdownToMrkdwn('> quoted **text**\n> more')).toBe('> quoted *text*\n> more');
  });

  it('draws a horizontal rule as a line', () => {
    expect(markdownToMrkdwn('above\n\n---\n\nbelow')).toBe('above\n\n──────────\n\nbelow');
  });

  it('keeps paragraphs apart', () => {
    expect(markdownToMrkdwn('one\n\n\n\ntwo\nthree')).toBe('one\n\ntwo\nthree');
  });
});

describe('markdownToMrkdwn: code', () => {
  it('converts nothing inside code spans, and escapes their markup characters for mrkdwn', () => {
    expect(markdownToMrkdwn('run `**not bold** [x](y) a<b && c` now')).toBe('run `**not bold** [x](y) a&lt;b &amp;&amp; c` now');
  });

  it('keeps fenced code as a code block, without the language mrkdwn cannot use', () => {
    const markdown = '```python\nif a < b and c & d:\n    print("**hi**")\n```';
    expect(markdownToMrkdwn(markdown)).toBe('```\nif a &lt; b and c &amp; d:\n    print("**hi**")\n```');
  });

  it('unindents a fence nested in a list item', () => {
    expect(markdownToMrkdwn('1. Install:\n   ```bash\n   npm ci\n   ```')).toBe('1. Install:\n```\nnpm ci\n```');
  });
});

describe('markdownToMrkdwn: tables', () => {
  it('renders a table as an aligned code block, since mrkdwn cannot draw tables', () => {
    const markdown = ['| Name | Role |', '|------|:----:|', '| Ana | **Engineer** |', '| Bo | [Ops](https://example.com/ops) |'].join('\n');
    expect(markdownToMrkdwn(markdown)).toBe(
      ['```', 'Name | Role', '-----+------------------------------', 'Ana  | Engineer', 'Bo   | Ops (https://example.com/ops)', '```'].join('\n'),
    );
  });

  it('aligns wide characters by the columns they take', () => {
    const out = markdownToMrkdwn('| 名前 | x |\n|---|---|\n| Ana | y |');
    expect(out).toBe('```\n名前 | x\n-----+--\nAna  | y\n```');
  });

  it('escapes markup characters in cells and keeps pipes inside code spans', () => {
    const out = markdownToMrkdwn('| expr | note |\n|---|---|\n| `a|b` | 1 < 2 & 3 |');
    expect(out).toBe('```\nexpr | note\n-----+----------\na|b  | 1 &lt; 2 &amp; 3\n```');
  });
});

describe('markdownToMrkdwn: safety', () => {
  it('escapes stray <, > and & outside code and links', () => {
    expect(markdownToMrkdwn('1 < 2 > 0 && done')).toBe('1 &lt; 2 &gt; 0 &amp;&amp; done');
  });

  it('neutralises mentions, so a status line cannot ping anyone', () => {
    expect(markdownToMrkdwn('**Done** <!here> <@U123> @channel')).toBe('*Done* @\u200bhere @\u200bU123 @\u200bchannel');
  });

  it('accepts Windows newlines', () => {
    expect(markdownToMrkdwn('# Title\r\n- item\r\n')).toBe('*Title*\n• item');
  });
});
