/**
 * PDF to text with one "--- page N ---" marker line per page and one 'page' segment per page (label "p. N").
 * Pages without text are scans: with OCR on, the first OCR_MAX_PAGES of them are rendered (pdf.js onto a
 * @napi-rs/canvas, no browser) and recognised; pages that have a text layer are never OCR'd. Pages left without
 * text are kept as markers so page numbers stay true; a PDF where every page is still empty is a scan we cannot read.
 */
import type { ContainedFile, ExtractedDocument } from '../core/thread-file';
import { DocumentBuilder } from './document-builder';
import { cMapUrl, loadPdfParse } from './pdf-engine';
import { openWithPdfium, PdfiumOpenError, type PdfBookmark } from './pdfium';
import {
  estimatePictures,
  formatPictureList,
  listPdfPictures,
  MAX_DECODED_PIXELS,
  MAX_PAGES_LOOKED_AT,
  MAX_PICTURE_PIXELS,
  PICTURE_LIST_PATH,
  pictureListNote,
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

/** What readPdf's caller wants of a PDF's first pages, before the whole file is read. */
export interface FirstPagesRequest {
  /** Text the first pages must hold before they are handed out (ExtractorOptions.firstPassChars). */
  chars: number;
  tell: (document: ExtractedDocument) => void;
}

/** One page's text layer, as read. */
interface PageText {
  num: number;
  text: string;
}

/** What the text pass found: every page's text, the page count, and the author's outline (bookmarks), if any. */
interface TextLayer {
  pages: PageText[];
  total: number;
  bookmarks: PdfBookmark[];
}

/**
 * `onFirstPages`: told once, as soon as the first pages hold `chars` of text (or every page is read), with
 * those pages as a document of their own (its pageCount the whole file's): the first question about a long PDF
 * needs its opening, not its end. Not told when those pages have no text (a scan: OCR comes after).
 */
export async function readPdf(
  bytes: Uint8Array,
  name: string,
  ocr?: OcrSettings,
  onFirstPages?: FirstPagesRequest,
): Promise<ExtractedDocument> {
  if (bytes.length === 0) throw emptyFileError(name);
  const endsProperly = hasEndOfFileMarker(bytes);
  const ocrOn = ocr !== undefined && ocr.maxPages > 0;
  const firstPages = onFirstPages && {
    chars: onFirstPages.chars,
    tell: (layer: TextLayer) => {
      if (layer.pages.some((page) => /\S/.test(page.text))) onFirstPages.tell(buildDocument(layer, name, new Map(), undefined, true));
    },
  };
  let layer: TextLayer;
  try {
    layer = await readTextLayer(bytes, firstPages);
  } catch (error) {
    if (!(error instanceof PdfiumOpenError) || error.reason === 'password') throw classifyPdfError(error, name, endsProperly);
    // PDFium gave up on its structure: pdf.js, which repairs differently, has its go (and names the fault).
    layer = await readTextLayerWithPdfjs(ocrOn ? bytes.slice() : bytes, name, endsProperly);
  }
  // The text document is gone before OCR starts: a scan waiting its turn at the one OCR engine holds no pdf.js
  // document meanwhile (two scans at once went past the memory target when it did).
  // Before OCR, which hands the bytes to pdf.js (and so detaches them).
  const pictures = offerPictures(bytes, layer.pages);
  const recognised = ocrOn ? await recognisePages(bytes, name, endsProperly, layer.pages, ocr) : new Map();
  const document = buildDocument(layer, name, recognised, ocr);
  if (pictures.entries.length) document.entries = pictures.entries;
  document.notes.push(...pictures.notes);
  return document;
}

/** Every page's text through PDFium, the first pages handed out once they hold `firstPages.chars`. */
async function readTextLayer(bytes: Uint8Array, firstPages?: { chars: number; tell: (layer: TextLayer) => void }): Promise<TextLayer> {
  const pdf = await openWithPdfium(bytes);
  try {
    const bookmarks = pdf.bookmarks();
    const pages: PageText[] = [];
    let chars = 0;
    let told = !firstPages;
    for (let index = 0; index < pdf.pageCount; index++) {
      const text = pdf.pageText(index);
      pages.push({ num: index + 1, text });
      chars += text.length;
      if (!told && (chars >= firstPages!.chars || index === pdf.pageCount - 1)) {
        told = true;
        firstPages!.tell({ pages: [...pages], total: pdf.pageCount, bookmarks });
        // The first pages go out now, not when the last page is read: the message is posted from this turn.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    return { pages, total: pdf.pageCount, bookmarks };
  } finally {
    pdf.close();
  }
}

/** The text layer through pdf.js (pdf-parse), for PDFs PDFium cannot open; its errors are classified. */
async function readTextLayerWithPdfjs(bytes: Uint8Array, name: string, endsProperly: boolean): Promise<TextLayer> {
  const parser = await openPdf(bytes);
  try {
    const result = await parser.getText({ pageJoiner: '' });
    return { pages: result.pages, total: result.total, bookmarks: [] };
  } catch (error) {
    throw classifyPdfError(error, name, endsProperly);
  } finally {
    await parser.destroy().catch(() => {});
  }
}

/**
 * Pictures are listed only when asked for (listing decodes every image of every page it looks at, which cost more
 * than reading the text): a PDF whose bytes hold pictures of a listable size on pages with text offers one entry,
 * PICTURE_LIST_PATH, whose reading lists them (readPdfPicture). Past the bounds a note says why they are not.
 */
function offerPictures(bytes: Uint8Array, pages: PageText[]): { entries: ContainedFile[]; notes: string[] } {
  const withText = pages.filter((page) => /\S/.test(page.text)).length;
  if (withText === 0) return { entries: [], notes: [] };
  const estimate = estimatePictures(bytes);
  if (estimate.count === 0) return { entries: [], notes: [] };
  const scans = withText < pages.length;
  // A page without text is a scan, and its image is counted in the bytes: when there are no more images than scanned
  // pages, the pictures are the scans, and offering a listing would list nothing.
  if (scans && estimate.count <= pages.length - withText) return { entries: [], notes: [] };
  if (estimate.pixels > MAX_DECODED_PIXELS || withText > MAX_PAGES_LOOKED_AT) {
    // In a PDF with scanned pages the pixels are mostly the scans: no note about "pictures" then.
    if (scans && withText <= MAX_PAGES_LOOKED_AT) return { entries: [], notes: [] };
    return {
      entries: [],
      notes: [
        `its pictures are not listed as files: at most ${MAX_PAGES_LOOKED_AT} pages and ${MAX_DECODED_PIXELS / 1e6} megapixels of images are looked through, and it has ${withText} page${withText === 1 ? '' : 's'} with text and ${Math.round(estimate.pixels / 1e6)} megapixels`,
      ],
    };
  }
  return {
    entries: [{ path: PICTURE_LIST_PATH, sizeBytes: estimate.count * 40, mimeType: 'text/plain' }],
    notes: [pictureListNote(estimate.count)],
  };
}

/** pdf.js's document under pdf-parse (its `load` is typed private, and is what every getter of it calls). */
function documentOf(parser: PdfParser): Promise<PdfDocumentLike> {
  return (parser as unknown as { load(): Promise<PdfDocumentLike> }).load();
}

/** One picture listed by readPdf ("page-3-image-1.png") as PNG bytes. */
export async function readPdfPicture(bytes: Uint8Array, name: string, path: string): Promise<Uint8Array> {
  if (path === PICTURE_LIST_PATH) return new TextEncoder().encode(await listPictures(bytes, name));
  const parser = await openPdf(bytes, true);
  try {
    return await renderPdfPicture(await documentOf(parser), name, path);
  } catch (error) {
    throw classifyPdfError(error, name, true);
  } finally {
    await parser.destroy().catch(() => {});
  }
}

/** The listing PICTURE_LIST_PATH reads as: a line per picture, then the notes (formatPictureList). */
async function listPictures(bytes: Uint8Array, name: string): Promise<string> {
  const { pages } = await readTextLayer(bytes).catch(() => readTextLayerWithPdfjs(bytes.slice(), name, true));
  const withText = pages.filter((page) => /\S/.test(page.text)).map((page) => page.num);
  const parser = await openPdf(bytes, true);
  try {
    return formatPictureList(await listPdfPictures(await documentOf(parser), withText.slice(0, MAX_PAGES_LOOKED_AT)));
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
  { pages, total, bookmarks }: TextLayer,
  name: string,
  recognised: ReadonlyMap<number, RecognisedText>,
  ocr: OcrSettings | undefined,
  partial = false,
): ExtractedDocument {
  const builder = new DocumentBuilder();
  const emptyPages: number[] = [];
  const ocrPages: number[] = [];
  let confidenceSum = 0;
  const pageTexts = new Map<number, { start: number; text: string }>();
  for (const page of pages) {
    let text = page.text.replace(/[ \t]+\n/g, '\n').trim();
    const fromOcr = recognised.get(page.num);
    if (!text && fromOcr?.text) {
      text = fromOcr.text;
      ocrPages.push(page.num);
      confidenceSum += fromOcr.confidence;
    }
    builder.endBlock().startSegment('page', page.num, `p. ${page.num}`);
    pageTexts.set(page.num, { start: builder.offset, text });
    builder.append(`${pageMarker(page.num)}\n`);
    if (text) builder.append(text);
    else {
      builder.append(emptyPageText);
      emptyPages.push(page.num);
    }
  }
  builder.append('\n');
  addBookmarks(builder, bookmarks, pageTexts);
  if (partial) return builder.build(total);
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

/**
 * The author's bookmarks as the outline, each at its heading in its page's text when the title is found there (the
 * first words, any spacing), else at the page's marker line. Only pages read are placed (the first pages hold the
 * part of the outline they reach). An entry that leads nowhere takes the page of its first child that does (a
 * "Part II" that only groups chapters); with none, it is left out. PDFs without bookmarks keep an empty outline.
 */
function addBookmarks(builder: DocumentBuilder, bookmarks: PdfBookmark[], pages: ReadonlyMap<number, { start: number; text: string }>): void {
  bookmarks.forEach((bookmark, index) => {
    let pageIndex = bookmark.pageIndex;
    for (let next = index + 1; pageIndex === undefined && next < bookmarks.length && bookmarks[next]!.level > bookmark.level; next++) {
      pageIndex = bookmarks[next]!.pageIndex;
    }
    const page = pageIndex === undefined ? undefined : pages.get(pageIndex + 1);
    if (!page || !bookmark.title) return;
    const words = bookmark.title.split(' ').slice(0, 8).map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const at = page.text.search(new RegExp(words.join('\\s+'), 'iu'));
    // The marker line "--- page N ---\n" comes first; the text follows it.
    const offset = at < 0 ? page.start : page.start + pageMarker(pageIndex! + 1).length + 1 + at;
    builder.addHeading(bookmark.title, bookmark.level, offset);
  });
}

function classifyPdfError(error: unknown, name: string, endsProperly: boolean): Error {
  const kind = (error as { name?: string } | null)?.name;
  if (kind === 'PasswordException' || (error instanceof PdfiumOpenError && error.reason === 'password')) return encryptedError(name);
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
