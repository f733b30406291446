import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../../src/search';
import { filler, pagedDocument, plainDocument, sectionedDocument } from './support/documents';

describe('chunkDocument', () => {
  it('gives every chunk of a paged document the one page it lies on, without the page marker', () => {
    const document = pagedDocument([filler('budgets', 60), filler('hiring', 8), filler('travel', 90)]);
    const chunks = chunkDocument(document);

    expect(new Set(chunks.map((c) => c.page))).toEqual(new Set([1, 2, 3]));
    for (const chunk of chunks) {
      const page = document.segments[chunk.page! - 1]!;
      expect(chunk.start).toBeGreaterThanOrEqual(page.start);
      expect(chunk.end).toBeLessThanOrEqual(page.end);
      expect(chunk.location).toBe(`p. ${chunk.page}`);
      expect(chunk.text).not.toMatch(/--- page/);
      expect(chunk.text).toBe(document.text.slice(chunk.start, chunk.end));
    }
  });

  it('sizes chunks in tokens, cuts long pages into even parts and overlaps them a little', () => {
    const document = pagedDocument([filler('the annual report', 150)]);
    const chunks = chunkDocument(document);

    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.tokens).toBeLessThanOrEqual(512);
      expect(chunk.tokens).toBeGreaterThan(200);
      // The stored count is the tokenizer's, give or take how words are split.
      expect(Math.abs(chunk.tokens - countTokens(chunk.text))).toBeLessThan(chunk.tokens * 0.1);
    }
    for (let i = 1; i < chunks.length; i += 1) {
      expect(chunks[i]!.start).toBeLessThan(chunks[i - 1]!.end);
      expect(chunks[i]!.start).toBeGreaterThan(chunks[i - 1]!.start);
    }
  });

  it('ends chunks at paragraph breaks when one is near', () => {
    const chunks = chunkDocument(pagedDocument([filler('paragraphs', 120)]));
    const endings = chunks.slice(0, -1).map((c) => c.text.at(-1));
    expect(endings.every((char) => char === '.')).toBe(true);
  });

  it('keeps a short page whole and numbers chunks in order', () => {
    const chunks = chunkDocument(pagedDocument(['Title page', 'Short second page.']));
    expect(chunks.map((c) => [c.ordinal, c.text, c.page])).toEqual([
      [0, 'Title page', 1],
      [1, 'Short second page.', 2],
    ]);
  });

  it('reads a heading-only section together with the section after it', () => {
    const document = sectionedDocument([
      { title: 'Results', body: '' },
      { title: 'Revenue', body: filler('revenue', 10) },
    ]);
    const [first, ...rest] = chunkDocument(document);
    expect(rest).toEqual([]);
    expect(first!.location).toBe('§ Revenue');
    expect(first!.text).toMatch(/^# Results\s+# Revenue/);
  });

  it('cites plain text by its lines', () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: a log entry about request ${i}`).join('\n');
    const chunks = chunkDocument(plainDocument(text));
    expect(chunks[0]!.location).toMatch(/^lines 1–\d+$/);
    const last = chunks.at(-1)!;
    expect(last.location).toMatch(/–400$/);
  });

  it('cites parts of a big sheet by their rows', () => {
    const rows = Array.from({ length: 300 }, (_, i) => `| Country ${i + 1} | ${1000 + i} | Capital ${i + 1} |`);
    const text = ['| Name | Code | Capital |', '| --- | --- | --- |', ...rows].join('\n');
    const chunks = chunkDocument({
      text,
      segments: [{ kind: 'sheet', number: 1, label: "Sheet 'Countries'", start: 0, end: text.length }],
      outline: [],
      notes: [],
    });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0]!.location).toMatch(/^Sheet 'Countries', rows 1–\d+$/);
    const row = (n: number) => chunks.find((c) => c.text.includes(`| Country ${n} |`))!.location;
    const [from, to] = row(150).match(/rows (\d+)–(\d+)/)!.slice(1).map(Number);
    expect(from).toBeLessThanOrEqual(150);
    expect(to).toBeGreaterThanOrEqual(150);
  });

  it('carries a table\'s column names into the chunks of its later rows, for the index only', () => {
    const rows = Array.from({ length: 120 }, (_, i) => `Region ${i + 1} ${1000 + i} ${2000 + i} ${300 + i} ${3300 + 2 * i}`);
    const document = pagedDocument([['Region Permit Handgun Long Gun Totals', ...rows].join('\n')]);
    const [first, ...later] = chunkDocument(document);

    expect(later.length).toBeGreaterThan(0);
    expect(first!.context).toBeUndefined();
    for (const chunk of later) {
      expect(chunk.context).toBe('Region Permit Handgun Long Gun Totals');
      expect(chunk.text).toBe(document.text.slice(chunk.start, chunk.end));
    }
  });

  it('carries a sheet\'s header row, and nothing on a page of prose', () => {
    const rows = Array.from({ length: 300 }, (_, i) => `| Country ${i + 1} | ${1000 + i} | Capital ${i + 1} |`);
    const text = ['## Sheet: Countries', '', '| Name | Code | Capital |', '| --- | --- | --- |', ...rows].join('\n');
    const sheet = chunkDocument({
      text,
      segments: [{ kind: 'sheet', number: 1, label: "Sheet 'Countries'", start: 0, end: text.length }],
      outline: [],
      notes: [],
    });
    expect(sheet.slice(1).every((c) => c.context === '| Name | Code | Capital |')).toBe(true);

    const prose = chunkDocument(pagedDocument([filler('the annual report, 2019 to 2021', 150)]));
    expect(prose.length).toBeGreaterThan(1);
    expect(prose.every((c) => c.context === undefined)).toBe(true);
  });

  it('finds places to cut Chinese text, which has no spaces', () => {
    const page = '营业收入同比增长百分之十二，主要原因是新产品销售良好。'.repeat(120);
    const chunks = chunkDocument(pagedDocument([page]));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.tokens <= 512)).toBe(true);
  });

  it('counts special-token look-alikes in a document as plain text', () => {
    const [chunk] = chunkDocument(plainDocument('A prompt log: <|endoftext|> then <|im_start|>user'));
    expect(chunk!.tokens).toBeGreaterThan(5);
  });

  it('is deterministic, so two replicas write identical rows', () => {
    const document = pagedDocument([filler('determinism', 80), filler('replicas', 40)]);
    expect(chunkDocument(document)).toEqual(chunkDocument(document));
  });
});
