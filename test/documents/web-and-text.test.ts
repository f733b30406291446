import iconv from 'iconv-lite';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentExtractor } from '../../src/documents';
import { corpus, readCorpusFile } from '../support/corpus';
import { countryPage, libraryReadme, officesCsv } from '../support/fixtures';

const utf8 = (value: string) => new TextEncoder().encode(value);

describe('HTML, CSV and text through the extractor', () => {
  const extractor = createDocumentExtractor({ maxRowsPerSheet: 3 });
  afterAll(() => extractor.close());

  it('reads the main content of a page block by block, without scripts, styles or navigation', async () => {
    const html = `<!doctype html><html><head><title>Release notes – Acme</title><style>p{color:red}</style>
      <script>var tracking = "secret";</script></head><body>
      <nav><a href="/">Home</a><a href="/about">About</a></nav>
      <main><h1>Release notes</h1><p>First paragraph.</p><p>Second<br>line.</p>
        <ul><li>one</li><li>two<ul><li>two and a half</li></ul></li></ul>
        <table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td>1</td></tr></table></main>
      <footer>Copyright Acme</footer></body></html>`;
    const document = await extractor.extract({ bytes: utf8(html), name: 'notes.html', mimeType: 'text/html' });
    expect(document.text).toBe(
      '# Release notes\n\nFirst paragraph.\n\nSecond\nline.\n\n- one\n- two\n  - two and a half\n\n' +
        '| Name | Value |\n| --- | --- |\n| a\\|b | 1 |',
    );
    expect(document.outline).toEqual([{ title: 'Release notes', level: 1, offset: 0 }]);
  });

  it('fails a page whose only content is scripts and navigation as empty, not as an empty success', async () => {
    const html = '<html><body><nav><a href="/">Home</a></nav><script>render()</script></body></html>';
    const error = await extractor.extract({ bytes: utf8(html), name: 'shell.html' }).catch((error: unknown) => error);
    expect(error).toMatchObject({ code: 'empty', message: 'shell.html contains no text that I could extract.' });
  });

  it('reads a CSV with quoted delimiters and line breaks, guessing the delimiter, rows capped', async () => {
    const csv = 'name;note\r\n"Smith; J.";"said ""hi""\nand left"\r\nDoe;ok\r\nRoe;ok\r\nPoe;ok\r\n';
    const document = await extractor.extract({ bytes: utf8(csv), name: 'people.csv' });
    expect(document.text).toBe(
      '| name | note |\n| --- | --- |\n| Smith; J. | said "hi" <br> and left |\n| Doe | ok |\n\n' +
        '(2 of 5 rows left out: the limit is 3 rows per table)\n',
    );
    expect(document.notes).toEqual(['rows capped: 2 of 5 rows of people.csv left out']);
  });

  it('decodes Shift-JIS and Latin-1 text and says which encoding it used', async () => {
    const japanese = '議事録：来週の打ち合わせは火曜日の午後三時からです。資料は共有フォルダにあります。'.repeat(4);
    const sjis = await extractor.extract({ bytes: new Uint8Array(iconv.encode(japanese, 'Shift_JIS')), name: 'memo.txt' });
    expect(sjis.text).toBe(japanese);
    expect(sjis.notes).toEqual(['decoded from shift_jis', 'language: Japanese']);
    const latin = await extractor.extract({ bytes: new Uint8Array(iconv.encode('Café crème, déjà vu.', 'latin1')), name: 'menu.txt' });
    expect(latin.text).toBe('Café crème, déjà vu.');
  });

  it('decodes UTF-16 with a byte order mark', async () => {
    const bytes = new Uint8Array(iconv.encode('{"ok": true, "name": "Zoë"}', 'utf-16le', { addBOM: true }));
    const document = await extractor.extract({ bytes, name: 'settings.json' });
    expect(document.text).toBe('{"ok": true, "name": "Zoë"}');
  });

  describe('generated files', () => {
    it('keeps the tables of a saved encyclopedia page as markdown tables and drops its chrome', async () => {
      const document = await extractor.extract({ bytes: utf8(countryPage(200)), name: 'norland.html' });
      expect(document.text).toContain('| Capital | Vestby <br> 60°10′N 11°02′E |');
      expect(document.text).not.toMatch(/function\s*\(|\{\s*display\s*:|mw-parser-output|Main page|Random article/);
      expect(document.text).not.toMatch(/\[edit\]/);
      expect(document.outline.map((entry) => entry.title)).toContain('History');
      expect(document.segments.length).toBeGreaterThan(5);
    });

    it('reads a CSV export with non-Latin scripts and quoted commas', async () => {
      const document = await extractor.extract({ bytes: utf8(officesCsv()), name: 'offices.csv' });
      expect(document.text).toMatch(/^\| Code \| City \| Country \| Country \(local\) \|/);
      expect(document.text).toContain('| en-NZ,mi |');
      expect(document.notes).toEqual(['rows capped: 248 of 251 rows of offices.csv left out']);
      const uncapped = createDocumentExtractor();
      try {
        const whole = await uncapped.extract({ bytes: utf8(officesCsv()), name: 'offices.csv' });
        expect(whole.text).toContain('| 中华人民共和国 |');
        expect(whole.text).toContain('| sales, support |');
      } finally {
        await uncapped.close();
      }
    });

    it('takes the outline of a markdown file from its headings, ignoring code fences', async () => {
      const document = await extractor.extract({ bytes: utf8(libraryReadme()), name: 'README.md' });
      expect(document.outline[0]).toEqual({ title: 'tabula-lite', level: 1, offset: 0 });
      expect(document.outline).toHaveLength(9);
      for (const heading of document.outline) expect(document.text.slice(heading.offset)).toMatch(/^#{1,6} /);
      expect(document.outline.some((entry) => entry.title.startsWith('import'))).toBe(false);
    });
  });

  describe.runIf(corpus.present)('corpus: HTML, CSV and markdown written by others', () => {
    it('keeps the tables of a saved Wikipedia page as markdown tables and drops its chrome', async () => {
      const name = 'wikipedia-new-zealand.html';
      const document = await extractor.extract({ bytes: await readCorpusFile(name), name });
      expect(document.text).toContain('| Capital | Wellington <br> 41°17′S 174°27′E');
      expect(document.text).not.toMatch(/function\s*\(|\{\s*display\s*:|mw-parser-output/);
      expect(document.text).not.toMatch(/\[edit\]/);
      expect(document.outline.map((entry) => entry.title)).toContain('History');
      expect(document.segments.length).toBeGreaterThan(5);
    });

    it('reads a CSV export with non-Latin scripts and quoted commas', async () => {
      const document = await extractor.extract({ bytes: await readCorpusFile('country-codes.csv'), name: 'country-codes.csv' });
      expect(document.text).toMatch(/^\| FIFA \| Dial \| ISO3166-1-Alpha-3 \|/);
      expect(document.text).toContain('| fa-AF,ps,uz-AF,tk |');
      expect(document.text).toContain('阿富汗伊斯兰共和国');
      expect(document.notes).toEqual(['rows capped: 247 of 250 rows of country-codes.csv left out']);
    });

    it('takes the outline of a markdown file from its headings, ignoring code fences', async () => {
      const name = 'pdfplumber-README.md';
      const document = await extractor.extract({ bytes: await readCorpusFile(name), name });
      expect(document.outline[0]).toEqual({ title: 'pdfplumber', level: 1, offset: 0 });
      for (const heading of document.outline) expect(document.text.slice(heading.offset)).toMatch(/^#{1,6} /);
      expect(document.outline.some((entry) => entry.title.startsWith('import'))).toBe(false);
    });
  });
});
