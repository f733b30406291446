import { zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentExtractor } from '../../src/documents';
import type { ExtractedDocument } from '../../src/core/thread-file';
import { FileReadError } from '../../src/core/thread-file';
import { corpus, readCorpusFile } from '../support/corpus';
import {
  arabicAddressWorkbook,
  brownbagDeck,
  buildPptx,
  docxHandbook,
  docxOfPictures,
  docxWithComments,
  docxWithFootnotes,
  docxWithTable,
  monitorSurveyWorkbook,
  protectedOfficeFile,
} from '../support/fixtures';

const failureOf = (promise: Promise<unknown>): Promise<FileReadError> =>
  promise.then(
    () => {
      throw new Error('expected the extraction to fail');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(FileReadError);
      return error as FileReadError;
    },
  );

describe('Office documents, generated', () => {
  const extractor = createDocumentExtractor({ maxRowsPerSheet: 100 });
  afterAll(() => extractor.close());
  const extract = (name: string, bytes: Buffer): Promise<ExtractedDocument> => extractor.extract({ bytes: new Uint8Array(bytes), name });

  describe('DOCX', () => {
    it('keeps tables as markdown tables between the paragraphs around them', async () => {
      const { text } = await extract('tables.docx', docxWithTable());
      expect(text).toContain('Above\n\n| Top left | Top right |\n| --- | --- |\n| Bottom left | Bottom right |\n\nBelow');
    });

    it('keeps footnotes, numbered like their references', async () => {
      const { text } = await extract('footnotes.docx', docxWithFootnotes());
      expect(text).toContain('Ouch.[1][2]');
      expect(text).toContain('[1] A tachyon walks into a bar.');
      expect(text).toContain('[2] Fin.');
    });

    it('keeps review comments after the body, marked where they were made', async () => {
      const { text } = await extract('comments.docx', docxWithComments());
      expect(text).toContain('This line will have one comment[v1].');
      expect(text).toContain('Comment [v1]: Comment 1 for the one word.');
      expect(text).toContain('Comment [v3]: Comment 3 about the table.');
      expect(text).toContain('| cell (0, 0) | cell (0, 1) | cell (0, 2) |\n| --- | --- | --- |');
    });

    it('turns headings into the outline and into section segments', async () => {
      const document = await extract('handbook.docx', docxHandbook());
      expect(document.outline.length).toBeGreaterThan(5);
      for (const heading of document.outline) {
        expect(document.text.slice(heading.offset)).toMatch(new RegExp(`^#{${heading.level}} `));
      }
      expect(document.segments.length).toBeGreaterThan(3);
      expect(document.segments.every((segment) => segment.kind === 'section' && segment.label.startsWith('§ '))).toBe(true);
    });

    it('renders numbered lists with nesting', async () => {
      const { text } = await extract('handbook.docx', docxHandbook());
      expect(text).toMatch(/^1\. Open the HR portal$/m);
      expect(text).toMatch(/^ {3}1\. Choose the dates$/m);
      expect(text).toMatch(/^2\. Submit the request$/m);
    });

    it('reads a DOCX of pictures only as its pictures, never as nothing', async () => {
      const document = await extract('pictures.docx', docxOfPictures());
      expect(document.text).toBe('(no text: the document holds 2 pictures, listed as files of their own)\n');
      expect(document.entries?.map((entry) => entry.path)).toEqual(['word/media/image1.jpeg', 'word/media/image2.jpeg']);
    });

    it('calls a DOCX whose zip was cut off corrupt', async () => {
      const whole = docxHandbook();
      const error = await failureOf(extract('handbook.truncated.docx', whole.subarray(0, Math.floor(whole.length * 0.7))));
      expect(error.code).toBe('corrupt');
      expect(error.message).toMatch(/^handbook\.truncated\.docx looks damaged or incomplete/);
    });

    it('calls an OLE-wrapped (encrypted) DOCX encrypted', async () => {
      const error = await failureOf(extract('plan.docx', protectedOfficeFile()));
      expect(error.code).toBe('encrypted');
      expect(error.message).toBe("plan.docx is password-protected, so I can't read it. Share an unprotected copy?");
    });

    it('refuses a zip bomb from its declared sizes, before inflating it', async () => {
      const bomb = zipSync({
        '[Content_Types].xml': new TextEncoder().encode('<Types/>'),
        'word/document.xml': new Uint8Array(64 * 1024 * 1024),
      });
      const error = await failureOf(extractor.extract({ bytes: bomb, name: 'bomb.docx' }));
      expect(error.code).toBe('too_large');
      expect(error.message).toMatch(/^bomb\.docx unpacks to too much data \(it expands \d+× to 64 MB\)/);
    });
  });

  describe('PPTX', () => {
    it('gives each slide a "## Slide N: title" heading and a slide segment', async () => {
      const document = await extract('deck.pptx', brownbagDeck());
      expect(document.pageCount).toBe(18);
      expect(document.segments).toHaveLength(18);
      expect(document.segments[3]).toMatchObject({ kind: 'slide', number: 4, label: 'slide 4' });
      const fourth = document.segments[3]!;
      expect(document.text.slice(fourth.start, fourth.end)).toMatch(/^## Slide 4: Topic 4/);
      expect(document.text.match(/^## Slide \d+/gm)).toHaveLength(18);
      expect(document.outline[1]).toMatchObject({ title: 'Background' });
    });

    it('includes speaker notes and tables', async () => {
      expect((await extract('notes.pptx', buildPptx([{ notes: 'Notes' }]))).text).toBe('## Slide 1\n\nNotes: Notes\n');
      const { text } = await extract('table.pptx', buildPptx([{ title: 'Numbers', table: [['Region', 'Q1'], ['EU', '12']], notes: 'Say the EU grew.' }]));
      expect(text).toBe('## Slide 1: Numbers\n\n| Region | Q1 |\n| --- | --- |\n| EU | 12 |\n\nNotes: Say the EU grew.\n');
    });

    it('calls a password-protected deck encrypted', async () => {
      const error = await failureOf(extract('deck.pptx', protectedOfficeFile()));
      expect(error.code).toBe('encrypted');
    });
  });

  describe('XLSX', () => {
    it('names each sheet and shows it as a markdown table of values, formula results included', async () => {
      const document = await extract('survey.xlsx', await monitorSurveyWorkbook());
      expect(document.pageCount).toBe(2);
      expect(document.outline.map((entry) => entry.title)).toEqual(['Sheet1', 'Sheet2']);
      expect(document.segments.map((segment) => segment.label)).toEqual(["Sheet 'Sheet1'", "Sheet 'Sheet2'"]);
      expect(document.text).toMatch(/^## Sheet: Sheet2\n\n\| Monitor \|/m);
      expect(document.text).toContain('| A | 20-23 Inch | DELL | 450 |');
      expect(document.text).toContain('| Total |  |  | 1308 |');
    });

    it('caps rows per sheet and says how many were left out, in the text and in notes', async () => {
      const document = await extract('addresses.xlsx', await arabicAddressWorkbook());
      expect(document.notes).toEqual(["rows capped: 2,401 of 2,501 rows of 'العناوين' left out"]);
      expect(document.text).toContain('(2,401 of 2,501 rows left out: the limit is 100 rows per table)');
      expect(document.text).toMatch(/[\u0600-\u06ff]/);
    });

    it('calls an encrypted workbook encrypted', async () => {
      const error = await failureOf(extract('salaries.xlsx', protectedOfficeFile()));
      expect(error).toMatchObject({ code: 'encrypted', message: expect.stringMatching(/^salaries\.xlsx is password/) });
    });
  });
});

describe.runIf(corpus.present)('corpus: Office documents written by others', () => {
  const extractor = createDocumentExtractor({ maxRowsPerSheet: 100 });
  afterAll(() => extractor.close());

  const extract = async (name: string): Promise<ExtractedDocument> =>
    extractor.extract({ bytes: await readCorpusFile(name), name });

  describe('DOCX', () => {
    it('keeps tables as markdown tables between the paragraphs around them', async () => {
      const { text } = await extract('tables.docx');
      expect(text).toContain('Above\n\n| Top left | Top right |\n| --- | --- |\n| Bottom left | Bottom right |\n\nBelow');
    });

    it('keeps footnotes, numbered like their references', async () => {
      const { text } = await extract('footnotes.docx');
      expect(text).toContain('Ouch[1].[2]');
      expect(text).toContain('[1] A tachyon walks into a bar.');
      expect(text).toContain('[2] Fin.');
    });

    it('keeps review comments, including a table inside one, after the body', async () => {
      const { text } = await extract('Comments with table.docx');
      expect(text).toContain('This line will have one [v1]comment.');
      expect(text).toContain('Comment [v1]: Comment 1 for the one word.');
      expect(text).toContain('Comment [v3]: Comment 3 with table.\n\n| cell (0, 0) | cell (0, 1) | cell (0, 2) |\n| --- |');
    });

    it('turns headings into the outline and into section segments', async () => {
      const document = await extract('BackgroundReport - THE WORKING GROUP ON INTERNET GOVERNANCE.docx');
      expect(document.outline.length).toBeGreaterThan(5);
      for (const heading of document.outline) {
        expect(document.text.slice(heading.offset)).toMatch(new RegExp(`^#{${heading.level}} `));
      }
      expect(document.segments.length).toBeGreaterThan(3);
      expect(document.segments.every((segment) => segment.kind === 'section' && segment.label.startsWith('§ '))).toBe(true);
      expect(document.text.length).toBeGreaterThan(200_000);
    });

    it('renders numbered lists with nesting', async () => {
      const { text } = await extract('Complex01.docx');
      expect(text).toMatch(/^1\. Video provides a powerful way/m);
      expect(text).toMatch(/^ {3}1\. When you click Online Video/m);
    });

    it('reads a DOCX of pictures only as its pictures, never as nothing', async () => {
      const document = await extract('having-images.docx');
      expect(document.text).toMatch(/^\(no text: the document holds \d+ pictures?, listed as files of their own\)\n$/);
      expect(document.entries?.length).toBeGreaterThan(0);
      for (const entry of document.entries!) expect(entry.path).toMatch(/^word\/media\/[^/]+\.(png|jpe?g|gif|emf|wmf|tiff?|bmp|webp)$/i);
    });

    it('calls a DOCX whose zip was cut off corrupt', async () => {
      const error = await failureOf(extract('Complex01.truncated.docx'));
      expect(error.code).toBe('corrupt');
      expect(error.message).toMatch(/^Complex01\.truncated\.docx looks damaged or incomplete/);
    });

    it('calls an OLE-wrapped (encrypted) DOCX encrypted', async () => {
      const bytes = await readCorpusFile('encryptAES.xlsx');
      const error = await failureOf(extractor.extract({ bytes, name: 'plan.docx' }));
      expect(error.code).toBe('encrypted');
      expect(error.message).toBe("plan.docx is password-protected, so I can't read it. Share an unprotected copy?");
    });
  });

  describe('PPTX', () => {
    it('gives each slide a "## Slide N: title" heading and a slide segment', async () => {
      const document = await extract('Bug571679_Brownbag.pptx');
      expect(document.pageCount).toBe(18);
      expect(document.segments).toHaveLength(18);
      expect(document.segments[3]).toMatchObject({ kind: 'slide', number: 4, label: 'slide 4' });
      const fourth = document.segments[3]!;
      expect(document.text.slice(fourth.start, fourth.end)).toMatch(/^## Slide 4/);
      expect(document.text.match(/^## Slide \d+/gm)).toHaveLength(18);
    });

    it('includes speaker notes', async () => {
      const { text } = await extract('prs-notes.pptx');
      expect(text).toBe('## Slide 1\n\nNotes: Notes\n');
    });

    it('calls a password-protected deck encrypted', async () => {
      const error = await failureOf(extract('encrypted_pptx.pptx'));
      expect(error.code).toBe('encrypted');
    });
  });

  describe('XLSX', () => {
    it('names each sheet and shows it as a markdown table of values', async () => {
      const document = await extract('Book1.xlsx');
      expect(document.pageCount).toBe(2);
      expect(document.outline.map((entry) => entry.title)).toEqual(['Sheet1', 'Sheet2']);
      expect(document.segments.map((segment) => segment.label)).toEqual(["Sheet 'Sheet1'", "Sheet 'Sheet2'"]);
      expect(document.text).toMatch(/^## Sheet: Sheet2\n\n\| Monitor \|/m);
      expect(document.text).toContain('| 20-23 Inch | 24 | DELL | 450 |');
    });

    it('caps rows per sheet and says how many were left out, in the text and in notes', async () => {
      const document = await extract('PerformanceArabic.xlsx');
      expect(document.notes).toEqual([expect.stringMatching(/^rows capped: 2,401 of 2,501 rows of '.+' left out$/)]);
      expect(document.text).toContain('(2,401 of 2,501 rows left out: the limit is 100 rows per table)');
      expect(document.text).toMatch(/[\u0600-\u06ff]/);
    });

    it('calls an encrypted workbook encrypted', async () => {
      const error = await failureOf(extract('encryptAES.xlsx'));
      expect(error).toMatchObject({ code: 'encrypted', message: expect.stringMatching(/^encryptAES\.xlsx is password/) });
    });
  });
});
