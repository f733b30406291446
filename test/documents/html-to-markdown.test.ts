import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { convertHtmlToMarkdown } from '../../src/documents/html-to-markdown';

const convert = (html: string, dropBoilerplate = false) =>
  convertHtmlToMarkdown(JSDOM.fragment(html), { dropBoilerplate, keepLinks: true });

describe('convertHtmlToMarkdown', () => {
  it('separates blocks that textContent would run together', () => {
    expect(convert('<div>one</div><div>two <b>bold</b></div><p>three</p>').markdown).toBe('one\n\ntwo bold\n\nthree');
  });

  it('spreads colspan and rowspan so columns stay aligned', () => {
    const html =
      '<table><tr><th colspan="2">Name</th><th>Age</th></tr>' +
      '<tr><td rowspan="2">Ann</td><td>B.</td><td>31</td></tr><tr><td>C.</td><td>32</td></tr></table>';
    expect(convert(html).markdown).toBe(
      '| Name |  | Age |\n| --- | --- | --- |\n| Ann | B. | 31 |\n|  | C. | 32 |',
    );
  });

  it('reads a one-column layout table as paragraphs', () => {
    expect(convert('<table><tr><td><p>Intro</p></td></tr><tr><td>More</td></tr></table>').markdown).toBe('Intro\n\nMore');
  });

  it('numbers ordered lists from their start, keeps absolute links, drops images without alt text', () => {
    const html = '<ol start="4"><li>Read <a href="https://example.com/spec">the spec</a></li><li>Ship<img src="x.png"></li></ol>';
    expect(convert(html).markdown).toBe('4. Read [the spec](https://example.com/spec)\n5. Ship');
  });

  it('reports headings with their offsets in the markdown', () => {
    const { markdown, headings } = convert('<p>Intro</p><h2>Results</h2><ul><li><h3>Inside</h3></li></ul>');
    expect(markdown).toBe('Intro\n\n## Results\n\n- ### Inside');
    expect(headings).toEqual([
      { title: 'Results', level: 2, offset: 7 },
      { title: 'Inside', level: 3, offset: 21 },
    ]);
  });

  it('writes definition lists as "term: definition"', () => {
    expect(convert('<dl><dt>TTL</dt><dd>Time to live.</dd><dt>Alone</dt></dl>').markdown).toBe('TTL: Time to live.\n\nAlone');
  });

  it('drops page chrome only when asked', () => {
    const html = '<header>Site</header><nav>Menu</nav><article><header>Title</header><p>Body</p></article><footer>©</footer>';
    expect(convert(html, true).markdown).toBe('Title\n\nBody');
    expect(convert(html, false).markdown).toBe('Site\n\nMenu\n\nTitle\n\nBody\n\n©');
  });
});
