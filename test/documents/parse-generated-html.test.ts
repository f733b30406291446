import { describe, expect, it } from 'vitest';
import { convertHtmlToMarkdown } from '../../src/documents/html-to-markdown';
import { parseGeneratedHtml } from '../../src/documents/parse-generated-html';

const toMarkdown = (html: string) =>
  convertHtmlToMarkdown(parseGeneratedHtml(html), { dropBoilerplate: false, keepLinks: true }).markdown;

describe('parseGeneratedHtml (mammoth output)', () => {
  it('builds elements with attributes, decoded text and void tags', () => {
    const root = parseGeneratedHtml('<p id="a1">Fish &amp; chips &lt;3<br />next<img alt="A &quot;map&quot;" src="" /></p>');
    const paragraph = root.children[0]!;
    expect(paragraph.localName).toBe('p');
    expect(paragraph.getAttribute('id')).toBe('a1');
    expect(paragraph.textContent).toBe('Fish & chips <3next');
    expect(Array.from(paragraph.children).map((child) => child.localName)).toEqual(['br', 'img']);
    expect(paragraph.children[1]!.getAttribute('alt')).toBe('A "map"');
    expect(paragraph.children[1]!.parentElement).toBe(paragraph);
  });

  it('ignores stray closing tags and closes what is left open at the end', () => {
    expect(toMarkdown('<p>one</span></p><ul><li>two')).toBe('one\n\n- two');
  });

  it('feeds the same walker as jsdom: tables with spans, footnotes, nested lists', () => {
    const html =
      '<table><tr><td colspan="2"><p>Total</p></td></tr><tr><td>a</td><td>b</td></tr></table>' +
      '<ol><li>First<ol><li>Inner</li></ol></li></ol>' +
      '<p>Claim<sup><a href="#footnote-1" id="footnote-ref-1">[1]</a></sup></p>' +
      '<ol><li id="footnote-1"><p>Source. <a href="#footnote-ref-1">↑</a></p></li></ol>';
    expect(toMarkdown(html)).toBe(
      '| Total |  |\n| --- | --- |\n| a | b |\n\n1. First\n   1. Inner\n\nClaim[1]\n\n[1] Source.',
    );
  });
});
