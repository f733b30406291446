/**
 * PDF to text with one "--- page N ---" marker line per page and one 'page' segment per page (label "p. N").
 * Pages without text are scans: with OCR on, the first OCR_MAX_PAGES of them are rendered (pdf.js onto a
 * @napi-rs/canvas, no browser) and recognised; pages that have a text layer are never OCR'd. Pages left without
 * text are kept as markers so page numbers stay true; a PDF where every page is still empty is a scan we cannot read.
 */
import type { ExtractedDocument } from '../core/thread-file';
import { DocumentBuilder } from './document-builder';
import { cMapUrl, loadPdfParse } from './pdf-engine';
import {
  estimatePictures,
  listPdfPictures,
  MAX_DECODED_PIXELS,
  MAX_PAGES_LOOKED_AT,
  MAX_PICTURE_PIXELS,
  renderPdfPicture,
  type PdfDocumentLike,
} from './pdf-images';
import { ocrNote, startOcrEngine, type OcrSettings, type RecognisedText } from './ocr';
import { corruptError, emptyFileError, encryptedError, noTextLayerError } from './read-errors';
import { asError } from '../core/errors';

function pageMarker(pageNumber: number): string {
  return `--- page ${pageNumber} ---`;
}

const emptyPageText = '(no text on this page: images only)';

/** Page images are rendered this wide: about 240 dpi for a letter or A4 page, where Tesseract reads body text well. */
const RENDER_WIDTH_PX = 2000;

type PdfParser = InstanceType<Awaited<ReturnType<typeof loadPdfParse>>['PDFParse']>;

/**
 * `forPictures`: pdf.js decodes every image of a page when it builds the page's operator list (how pictures are
 * listed); images past MAX_PICTURE_PIXELS (a 9000×9000 px plate, ~240 MB decoded) are never listed, so they are
 * dropped before decoding. Text extraction decodes no images either way.
 */
async function openPdf(bytes: Uint8Array, forPictures = false): Promise<PdfParser> {
  const { PDFParse } = await loadPdfParse();
  return new PDFParse({
    ...(forPictures && { maxImageSize: MAX_PICTURE_PIXELS }),
    data: bytes,
    cMapUrl,
    cMapPacked: true,
    // Text only: no font faces, no eval'd glyph programs, no system fonts, no canvas work.
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
  });
}

export async function readPdf(bytes: Uint8Array, name: string, ocr?: OcrSettings): Promise<ExtractedDocument> {
  if (bytes.length === 0) throw emptyFileError(name);
  const endsProperly = hasEndOfFileMarker(bytes);
  const pictureEstimate = estimatePictures(bytes);
  const ocrOn = ocr !== undefined && ocr.maxPages > 0;
  // pdf.js takes (detaches) the buffer it is given; with OCR on, the bytes are needed again for rendering.
  const parser = await openPdf(ocrOn ? bytes.slice() : bytes, true);
  let result: Awaited<ReturnType<PdfParser['getText']>>;
  let pictures: Awaited<ReturnType<typeof listPdfPictures>> = { entries: [], notes: [] };
  try {
    result = await parser.getText({ pageJoiner: '' });
    const withText = result.pages.filter((page) => /\S/.test(page.text)).map((page) => page.num);
    if (withText.length && pictureEstimate.count > 0) {
      const scans = withText.length < result.pages.length;
      if (pictureEstimate.pixels > MAX_DECODED_PIXELS || withText.length > MAX_PAGES_LOOKED_AT) {
        // In a PDF with scanned pages the pixels are mostly the scans: no note about "pictures" then.
        if (!scans || withText.length > MAX_PAGES_LOOKED_AT) pictures.notes.push(
          `its pictures are not listed as files: at most ${MAX_PAGES_LOOKED_AT} pages and ${MAX_DECODED_PIXELS / 1e6} megapixels of images are looked through, and it has ${withText.length} page${withText.length === 1 ? '' : 's'} with text and ${Math.round(pictureEstimate.pixels / 1e6)} megapixels`,
        );
      } else pictures = await listPdfPictures(await documentOf(parser), withText);
    }
  } catch (error) {
    throw classifyPdfError(error, name, endsProperly);
  } finally {
    await parser.destroy().catch(() => {});
  }
  // The text document is gone before OCR starts: a scan waiting its turn at the one OCR engine holds no pdf.js
  // document meanwhile (two scans at once went past the memory target when it did).
  const recognised = ocrOn ? await recognisePages(bytes, name, endsProperly, result.pages, ocr) : new Map();
  const document = buildDocument(result.pages, result.total, name, recognised, ocr);
  if (pictures.entries.length) document.entries = pictures.entries;
  document.notes.push(...pictures.notes);
  return document;
}

/** pdf.js's document under pdf-parse (its `load` is typed private, and is what every getter of it calls). */
function documentOf(parser: PdfParser): Promise<PdfDocumentLike> {
  return (parser as unknown as { load(): Promise<PdfDocumentLike> }).load();
}

/** One picture listed by readPdf ("page-3-image-1.png") as PNG bytes. */
export async function readPdfPicture(bytes: Uint8Array, name: string, path: string): Promise<Uint8Array> {
  const parser = await openPdf(bytes, true);
  try {
    return await renderPdfPicture(await documentOf(parser), name, path);
  } catch (error) {
    throw classifyPdfError(error, name, true);
  } finally {
    await parser.destroy().catch(() => {});
  }
}

/**
 * The pages without a text layer, up to the cap, rendered one at a time (one page image in memory) and recognised.
 * The engine (and with it the pool's one OCR turn) comes first; the PDF is opened for rendering only once it is ours.
 */
async function recognisePages(
  bytes: Uint8Array,
  name: string,
  endsProperly: boolean,
  pages: Array<{ num: number; text: string }>,
  ocr: OcrSettings,
): Promise<Map<number, RecognisedText>> {
  const scanned = pages.filter((page) => !/\S/.test(page.text)).map((page) => page.num);
  const recognised = new Map<number, RecognisedText>();
  if (scanned.length === 0) return recognised;
  const engine = await startOcrEngine(ocr);
  let parser: PdfParser | undefined;
  try {
    parser = await openPdf(bytes);
    for (const pageNumber of scanned.slice(0, ocr.maxPages)) {
      const shot = await parser.getScreenshot({
        partial: [pageNumber],
        desiredWidth: RENDER_WIDTH_PX,
        imageDataUrl: false,
        imageBuffer: true,
      });
      const image = shot.pages[0]?.data;
      if (image) recognised.set(pageNumber, await engine.recognise(image));
    }
  } catch (error) {
    throw classifyPdfError(error, name, endsProperly);
  } finally {
    await parser?.destroy().catch(() => {});
    await engine.close().catch(() => {});
  }
  return recognised;
}

function buildDocument(
  pages: Array<{ num: number; text: string }>,
  total: number,
  name: string,
  recognised: ReadonlyMap<number, RecognisedText>,
  ocr: OcrSettings | undefined,
): ExtractedDocument {
  const builder = new DocumentBuilder();
  const emptyPages: number[] = [];
  const ocrPages: number[] = [];
  let confidenceSum = 0;
  for (const page of pages) {
    let text = page.text.replace(/[ \t]+\n/g, '\n').trim();
    const fromOcr = recognised.get(page.num);
    if (!text && fromOcr?.text) {
      text = fromOcr.text;
      ocrPages.push(page.num);
      confidenceSum += fromOcr.confidence;
    }
    builder.endBlock().startSegment('page', page.num, `p. ${page.num}`).append(`${pageMarker(page.num)}\n`);
    if (text) builder.append(text);
    else {
      builder.append(emptyPageText);
      emptyPages.push(page.num);
    }
  }
  builder.append('\n');
  if (total === 0) throw corruptError(name, 'it has no pages');
  if (emptyPages.length === total) throw noTextLayerError(name, total);
  if (ocrPages.length > 0) {
    builder.addNote(ocrNote(formatPageList(ocrPages), ocr!.languages, Math.round(confidenceSum / ocrPages.length)));
  }
  const skipped = ocr && ocr.maxPages > 0 ? emptyPages.filter((page) => !recognised.has(page)) : [];
  if (skipped.length > 0) {
    builder.addNote(
      `OCR stopped at OCR_MAX_PAGES=${ocr!.maxPages} pages: ${formatPageList(skipped)} (images only) were not recognised`,
    );
  }
  const unread = emptyPages.filter((page) => !skipped.includes(page));
  if (unread.length > 0) {
    const why = ocr && ocr.maxPages > 0 ? 'no text layer, and OCR found no text on them' : 'no text layer (images only)';
    builder.addNote(`${unread.length} of ${total} pages have ${why}: ${formatPageList(unread)}`);
  }
  return builder.build(total);
}

function classifyPdfError(error: unknown, name: string, endsProperly: boolean): Error {
  const kind = (error as { name?: string } | null)?.name;
  if (kind === 'PasswordException') return encryptedError(name);
  if (kind === 'InvalidPDFException' || kind === 'FormatError' || kind === 'UnknownErrorException') {
    return corruptError(name, endsProperly ? 'its PDF structure is invalid' : 'the file is cut off before its end', error);
  }
  return asError(error);
}

/** A complete PDF ends with "%%EOF" (give or take trailing junk); a truncated upload does not. */
function hasEndOfFileMarker(bytes: Uint8Array): boolean {
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).subarray(-2048);
  return tail.includes('%%EOF', 0, 'latin1');
}

function formatPageList(pages: number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < pages.length; i++) {
    const start = pages[i]!;
    while (i + 1 < pages.length && pages[i + 1] === pages[i]! + 1) i++;
    ranges.push(pages[i] === start ? `p. ${start}` : `pp. ${start}–${pages[i]}`);
  }
  return ranges.join(', ');
}
