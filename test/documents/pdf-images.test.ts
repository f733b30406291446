/**
 * Pictures on PDF pages as contained files, listed only when the PDF's pictures.txt entry is read: over a generated
 * paper that paints its figures as the corpus paper does (test/support/fixtures: paperWithFigures), and in the corpus
 * tier over the real one. Corpus: issue-982-example.pdf (an 8-page pdfTeX paper) paints two 1280×960 photos on p. 2
 * and three figures on p. 3 (640×480, 606×480, 800×600 px, in drawing order); its other pictures are inline or under
 * 100 px. The PNG of page-3-image-3.png is decoded back and checked for its size and for holding a picture (many
 * distinct colours), not a blank canvas.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentExtractor } from '../../src/documents';
import { mayHoldPictures, parsePictureList, PICTURE_LIST_PATH } from '../../src/documents/pdf-images';
import { FileReadError } from '../../src/core/thread-file';
import { corpus, readCorpusFile } from '../support/corpus';
import { buildPdf } from '../support/image-pdf';
import { lectureNotes, paperWithFigures, scannedNotice } from '../support/fixtures';

/** The PNG of a listed picture: its size, and many distinct colours (a picture, not a blank canvas). */
async function expectPicture(png: Uint8Array, width: number, height: number): Promise<void> {
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const image = await loadImage(Buffer.from(png));
  expect([image.width, image.height]).toEqual([width, height]);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, image.width, image.height).data;
  const colours = new Set<number>();
  for (let i = 0; i < pixels.length; i += 4 * 97) colours.add((pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!);
  expect(colours.size).toBeGreaterThan(50);
}

const PAPER_LISTING = [
  'Pictures on its pages, each a file of its own that load_file shows:',
  'page-2-image-1.png 1280×960 px',
  'page-2-image-2.png 1280×960 px',
  'page-3-image-1.png 640×480 px',
  'page-3-image-2.png 606×480 px',
  'page-3-image-3.png 800×600 px',
  '',
].join('\n');
const PAPER_PICTURES = [
  { path: 'page-2-image-1.png', sizeBytes: 1280 * 960 * 3, mimeType: 'image/png' },
  { path: 'page-2-image-2.png', sizeBytes: 1280 * 960 * 3, mimeType: 'image/png' },
  { path: 'page-3-image-1.png', sizeBytes: 640 * 480 * 3, mimeType: 'image/png' },
  { path: 'page-3-image-2.png', sizeBytes: 606 * 480 * 3, mimeType: 'image/png' },
  { path: 'page-3-image-3.png', sizeBytes: 800 * 600 * 3, mimeType: 'image/png' },
];

describe('pictures on PDF pages', { timeout: 120_000 }, () => {
  const extractor = createDocumentExtractor();
  afterAll(() => extractor.close());

  /** Reading the text lists nothing; the listing is an entry of its own, and each picture a PNG on demand. */
  async function expectPaperPictures(bytes: Uint8Array): Promise<void> {
    const document = await extractor.extract({ bytes: new Uint8Array(bytes), name: 'paper.pdf' });
    expect(document.entries).toEqual([{ path: PICTURE_LIST_PATH, sizeBytes: expect.any(Number), mimeType: 'text/plain' }]);
    expect(document.notes.join('\n')).toContain(`its entry ${PICTURE_LIST_PATH} lists them when opened`);
    const listing = new TextDecoder().decode(await extractor.readPdfPicture({ bytes: new Uint8Array(bytes), name: 'paper.pdf', path: PICTURE_LIST_PATH }));
    expect(listing).toBe(PAPER_LISTING);
    expect(parsePictureList(listing)).toEqual(PAPER_PICTURES);
    await expectPicture(await extractor.readPdfPicture({ bytes: new Uint8Array(bytes), name: 'paper.pdf', path: 'page-3-image-3.png' }), 800, 600);
  }

  it('lists the figures of a generated paper by page, with their pixel sizes, when asked, and makes one a PNG on demand', async () => {
    await expectPaperPictures(paperWithFigures());
  });

  it('answers a picture the PDF does not have with a sentence naming it', async () => {
    const error = await extractor.readPdfPicture({ bytes: new Uint8Array(paperWithFigures()), name: 'paper.pdf', path: 'page-3-image-9.png' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileReadError);
    expect((error as FileReadError).message).toContain('page-3-image-9.png is not a picture of paper.pdf');
  });

  it('lists nothing for a PDF of text, without reading its pages for pictures', async () => {
    const pdf = buildPdf([{ text: ['Quarterly numbers', 'Revenue grew 12 %.'] }]);
    expect(mayHoldPictures(pdf)).toBe(false);
    const document = await extractor.extract({ bytes: new Uint8Array(pdf), name: 'text.pdf' });
    expect(document.entries).toBeUndefined();
  });

  it('says why a long PDF’s pictures are not listed instead of slowing its reading', async () => {
    // 117 pages with text and one figure: past the 40 pages looked through for pictures.
    const document = await extractor.extract({ bytes: new Uint8Array(lectureNotes()), name: 'book.pdf' });
    expect(document.entries).toBeUndefined();
    expect(document.notes.join('\n')).toMatch(/its pictures are not listed as files: at most 40 pages and 12 megapixels of images are looked through, and it has 117 pages with text/);
  });

  it('does not list the page image of a scan as a picture', async () => {
    const bytes = scannedNotice();
    // The raw bytes do hold a large image (the scan): the page without a text layer is what keeps it out.
    expect(mayHoldPictures(bytes)).toBe(true);
    const ocr = createDocumentExtractor({ ocr: { languages: ['eng'], maxPages: 1 } });
    try {
      const document = await ocr.extract({ bytes: new Uint8Array(bytes), name: 'scan.pdf' });
      expect(document.text).toContain('6 March 2026');
      expect(document.entries).toBeUndefined();
    } finally {
      await ocr.close();
    }
  });

  describe.runIf(corpus.present)('corpus: pictures in real PDFs', () => {
    it('lists the figures of a real paper by page, with their pixel sizes, when asked, and makes one a PNG on demand', async () => {
      await expectPaperPictures(await readCorpusFile('issue-982-example.pdf'));
    });

    it('does not list the page image of a real scan as a picture', async () => {
      const bytes = await readCorpusFile('c02-22.pdf');
      expect(mayHoldPictures(bytes)).toBe(true);
      const ocr = createDocumentExtractor({ ocr: { languages: ['eng'], maxPages: 1 } });
      try {
        const document = await ocr.extract({ bytes: new Uint8Array(bytes), name: 'scan.pdf' });
        expect(document.entries).toBeUndefined();
      } finally {
        await ocr.close();
      }
    });
  });
});
