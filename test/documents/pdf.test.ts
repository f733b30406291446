import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentExtractor } from '../../src/documents';
import type { ExtractedDocument } from '../../src/core/thread-file';
import { FileReadError } from '../../src/core/thread-file';
import { corpus, readCorpusFile } from '../support/corpus';
import {
  airworthinessDirective,
  brokenXrefNote,
  chineseQuarterlyReport,
  lectureNotes,
  mostlyScanned,
  onePagePdf,
  protectedMemo,
  scannedNotice,
} from '../support/fixtures';
import { buildPdf } from '../support/image-pdf';

/** The page segment (p. N) an outline entry's offset falls in. */
function pageAt(document: ExtractedDocument, offset: number): number | undefined {
  return document.segments.find((segment) => segment.start <= offset && offset < segment.end)?.number;
}

/** Every page starts with its "--- page N ---" line, and its segment (p. N) covers it. */
function expectPageMarkers(document: ExtractedDocument, pages: number): void {
  expect(document.pageCount).toBe(pages);
  expect(document.segments).toHaveLength(pages);
  document.segments.forEach((segment, index) => {
    expect(segment).toMatchObject({ kind: 'page', number: index + 1, label: `p. ${index + 1}` });
    expect(document.text.slice(segment.start, segment.end)).toMatch(new RegExp(`^--- page ${index + 1} ---\\n\\S`));
  });
  expect(document.text.match(/^--- page \d+ ---$/gm)).toHaveLength(pages);
}

describe('PDF extraction over generated PDFs', () => {
  const extractor = createDocumentExtractor();
  afterAll(() => extractor.close());

  const extract = (name: string, bytes: Buffer): Promise<ExtractedDocument> =>
    extractor.extract({ bytes: new Uint8Array(bytes), name, mimeType: 'application/pdf' });
  const failure = async (name: string, bytes: Buffer): Promise<FileReadError> => {
    const error = await extract(name, bytes).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(error).toBeInstanceOf(FileReadError);
    return error as FileReadError;
  };

  it('marks every page with a "--- page N ---" line and a matching p. N segment', async () => {
    const document = await extract('directive.pdf', airworthinessDirective());
    expectPageMarkers(document, 15);
    expect(document.text).toContain('Federal Aviation Notices');
  });

  it('reads the text of an embedded TrueType font exactly, accents and all', async () => {
    const document = await extract('notes.pdf', lectureNotes());
    expect(document.pageCount).toBe(117);
    expect(document.segments.at(-1)).toMatchObject({ number: 117, label: 'p. 117', end: document.text.length });
    expect(document.text.length).toBeGreaterThan(100_000);
    expect(document.text).toContain('Definition 73 (Normalkrümmung): Sei S eine reguläre Fläche');
    expect(document.text).toContain('κNor(s, x)');
  });

  it('produces CJK characters for a Chinese PDF whose font is not embedded (CMaps loaded)', async () => {
    const document = await extract('report.pdf', chineseQuarterlyReport());
    expect(document.text.match(/[\u4e00-\u9fff]/g)?.length ?? 0).toBeGreaterThan(1000);
    expect(document.text).toContain('营业收入');
    expect(document.text).toContain('4,755,785.11');
  });

  it('refuses a PDF with a user password as encrypted, in a sentence naming it', async () => {
    const error = await failure('memo.pdf', protectedMemo('s3cret'));
    expect(error.code).toBe('encrypted');
    expect(error.message).toBe("memo.pdf is password-protected, so I can't read it. Share an unprotected copy?");
  });

  it('opens a PDF that has only an owner password (copy restriction), decrypting its text', async () => {
    const document = await extract('memo.pdf', protectedMemo(''));
    expect(document.pageCount).toBe(2);
    expect(document.text).toContain('The board approved the consolidation plan on 3 February 2026.');
  });

  it('calls a truncated download corrupt and says it is cut off', async () => {
    const whole = airworthinessDirective();
    const error = await failure('directive.truncated.pdf', whole.subarray(0, Math.floor(whole.length * 0.6)));
    expect(error.code).toBe('corrupt');
    expect(error.message).toMatch(/^directive\.truncated\.pdf .*cut off/);
  });

  it.each([
    ['invalid.pdf', Buffer.from('%PDF-1.3\nThis is not a valid PDF file\n%%EOF\n'), 'corrupt'],
    ['empty.pdf', Buffer.alloc(0), 'empty'],
    ['scan.pdf', scannedNotice(), 'no_text_layer'],
  ])('fails %s with %s', async (name, bytes, code) => {
    const error = await failure(name, bytes);
    expect(error.code).toBe(code);
    expect(error.message.startsWith(name)).toBe(true);
  });

  it('keeps a mostly scanned PDF and notes which pages had no text layer', async () => {
    const document = await extract('multipage.pdf', mostlyScanned());
    expect(document.pageCount).toBe(6);
    expect(document.notes).toEqual(['5 of 6 pages have no text layer (images only): pp. 1–3, pp. 5–6']);
    expect(document.text).toContain('--- page 1 ---\n(no text on this page: images only)');
    expect(document.text).toContain('--- page 4 ---\nTyped page');
  });

  it('recovers text from a PDF with bad xref offsets', async () => {
    const document = await extract('note.pdf', brokenXrefNote());
    expect(document.text).toMatch(/Simple is better than complex/);
  });

  it('reads a one-page PDF whole', async () => {
    const document = await extract('receipt.pdf', onePagePdf(['Receipt 2026-117', 'Total: 48.00 euros']));
    expect(document.text).toBe('--- page 1 ---\nReceipt 2026-117\nTotal: 48.00 euros\n');
    expect(document.outline).toEqual([]);
  });

  it("takes the outline from the PDF's bookmarks, each entry at its heading on its page", async () => {
    const page = (heading: string) => ({ text: [heading, `The body of ${heading.toLowerCase()} goes on for a while.`] });
    const pdf = buildPdf(
      [page('Preface'), page('1 Getting started'), page('1.1 Installing'), page('2 Travel rules'), page('Appendix')],
      {
        outline: [
          { title: 'Preface', page: 1 },
          // A heading that only groups its chapters leads nowhere itself: it stands where its first chapter does.
          {
            title: 'Teil I: Grundlagen für Reisende',
            children: [
              { title: '1 Getting started', page: 2, children: [{ title: '1.1 Installing', page: 3, asAction: true }] },
              { title: '2 Travel rules', page: 4 },
            ],
          },
          { title: 'Appendix', page: 5 },
        ],
      },
    );
    const document = await extract('handbook.pdf', pdf);
    expect(document.outline.map(({ title, level }) => [title, level])).toEqual([
      ['Preface', 1],
      ['Teil I: Grundlagen für Reisende', 1],
      ['1 Getting started', 2],
      ['1.1 Installing', 3],
      ['2 Travel rules', 2],
      ['Appendix', 1],
    ]);
    expect(document.outline.map((entry) => pageAt(document, entry.offset))).toEqual([1, 2, 2, 3, 4, 5]);
    // Where the heading's text is on the page, the entry points at it rather than at the page marker.
    const installing = document.outline.find((entry) => entry.title === '1.1 Installing')!;
    expect(document.text.slice(installing.offset)).toMatch(/^1\.1 Installing\n/);
  });

  it("tells the first pages with the part of the outline they reach", async () => {
    const pages = Array.from({ length: 40 }, (_, i) => ({
      text: [`Chapter ${i + 1}`, ...Array.from({ length: 30 }, (_, line) => `Line ${line + 1} of chapter ${i + 1}, about travel expenses and receipts.`)],
    }));
    const outline = pages.map((_, i) => ({ title: `Chapter ${i + 1}`, page: i + 1 }));
    const openings: ExtractedDocument[] = [];
    const document = await extractor.extract({
      bytes: new Uint8Array(buildPdf(pages, { outline })),
      name: 'long.pdf',
      onFirstPages: (opening) => openings.push(opening),
    });
    expect(document.outline).toHaveLength(40);
    const [opening] = openings;
    const read = opening!.segments.length;
    expect(read).toBeLessThan(40);
    expect(opening!.pageCount).toBe(40);
    expect(opening!.outline.map((entry) => entry.title)).toEqual(outline.slice(0, read).map((entry) => entry.title));
    expect(opening!.outline.every((entry) => entry.offset < opening!.text.length)).toBe(true);
  });
});

describe.runIf(corpus.present)('corpus: PDF extraction over real PDFs', () => {
  const extractor = createDocumentExtractor();
  afterAll(() => extractor.close());

  const extract = async (name: string): Promise<ExtractedDocument> =>
    extractor.extract({ bytes: await readCorpusFile(name), name, mimeType: 'application/pdf' });
  const failure = async (name: string): Promise<FileReadError> => {
    const error = await extract(name).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(error).toBeInstanceOf(FileReadError);
    return error as FileReadError;
  };

  it('marks every page with a "--- page N ---" line and a matching p. N segment', async () => {
    const document = await extract('federal-register-2020-17221.pdf');
    expectPageMarkers(document, 15);
    expect(document.text).toContain('Federal Register');
  });

  it('reads a 117-page textbook, page 117 last, its chapters in the outline from its bookmarks', async () => {
    const document = await extract('GeoTopo-komprimiert.pdf');
    expect(document.pageCount).toBe(117);
    expect(document.segments.at(-1)).toMatchObject({ number: 117, label: 'p. 117', end: document.text.length });
    expect(document.text.length).toBeGreaterThan(100_000);
    expect(document.outline).toHaveLength(35);
    expect(document.outline.slice(0, 3)).toMatchObject([
      { title: '1 Topologische Grundbegriffe', level: 1 },
      { title: '1.1 Topologische Räume', level: 2 },
      { title: '1.2 Metrische Räume', level: 2 },
    ]);
    const metric = document.outline[2]!;
    expect(pageAt(document, metric.offset)).toBe(10);
    expect(document.text.slice(metric.offset, metric.offset + 40)).toMatch(/^1\.2\s+Metrische Räume/);
  });

  it('produces CJK characters for Chinese PDFs whose fonts are not embedded (CMaps loaded)', async () => {
    const document = await extract('pr-136-example.pdf');
    const cjk = document.text.match(/[\u4e00-\u9fff]/g) ?? [];
    expect(cjk.length).toBeGreaterThan(1000);
    const report = await extract('issue-67-example.pdf');
    expect(report.text.match(/[\u4e00-\u9fff]/g)?.length ?? 0).toBeGreaterThan(1000);
  });

  it.each(['libreoffice-writer-password.pdf', 'password-example.pdf', 'r4-aes-user-password.pdf'])(
    'refuses the password-protected %s as encrypted, in a sentence naming it',
    async (name) => {
      const error = await failure(name);
      expect(error.code).toBe('encrypted');
      expect(error.message).toBe(`${name} is password-protected, so I can't read it. Share an unprotected copy?`);
    },
  );

  it('opens a PDF that has only an owner password (copy restriction)', async () => {
    const document = await extract('pr-138-example.pdf');
    expect(document.pageCount).toBe(2);
    expect(document.text.replace(/\s/g, '').length).toBeGreaterThan(1000);
  });

  it('calls a truncated download corrupt and says it is cut off', async () => {
    const error = await failure('federal-register-2020-17221.truncated.pdf');
    expect(error.code).toBe('corrupt');
    expect(error.message).toMatch(/^federal-register-2020-17221\.truncated\.pdf .*cut off/);
  });

  it.each([
    ['invalid.pdf', 'corrupt'],
    ['unreadablemetadata.pdf', 'corrupt'],
    ['empty.pdf', 'empty'],
    ['c02-22.pdf', 'no_text_layer'],
    ['skew.pdf', 'no_text_layer'],
  ])('fails %s with %s', async (name, code) => {
    const error = await failure(name);
    expect(error.code).toBe(code);
    expect(error.message.startsWith(name)).toBe(true);
  });

  it('keeps a mostly scanned PDF and notes which pages had no text layer', async () => {
    const document = await extract('multipage.pdf');
    expect(document.pageCount).toBe(6);
    expect(document.notes).toEqual(['5 of 6 pages have no text layer (images only): pp. 1–3, pp. 5–6']);
    expect(document.text).toContain('--- page 1 ---\n(no text on this page: images only)');
  });

  it('recovers text from a PDF with bad xref offsets', async () => {
    const document = await extract('zen_of_python_corrupted.pdf');
    expect(document.text).toMatch(/Beautiful is better than ugly/);
  });
});
