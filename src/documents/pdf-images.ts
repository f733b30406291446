/**
 * Pictures drawn on PDF pages (a diagram, a chart, a photo), as contained files of the PDF: "page-3-image-1.png".
 * Listing happens on demand, never while the text is read: a PDF whose bytes hold pictures offers one entry,
 * "pictures.txt" (PICTURE_LIST_PATH), and reading it lists them from each page's operator list (which images are
 * painted, their pixel size, how much of the page they cover); the files layer then registers each as a file. The
 * PNG is made only when load_file opens one, by a worker task that loads the page again and encodes the decoded
 * image with @napi-rs/canvas.
 *
 * Left out: images under MIN_SIDE_PX on a side (icons, rules, bullets), images covering most of their page (a
 * scanned page or a background: the page's text, OCR'd when it has no text layer, is what the file offers for
 * those), pages without a text layer (scans, the same reason, and their huge images are not decoded twice), inline
 * images (the format keeps them to a few KB) and stencil masks (one-colour shapes). At most MAX_IMAGES per PDF.
 */
import type { ContainedFile } from '../core/thread-file';
import { loadCanvas } from './libraries';
import { loadPdfjs, type PdfjsConstants } from './pdf-engine';
import { corruptError } from './read-errors';

/** Smaller images are decoration: icons, bullets, rules, logos in a header. */
const MIN_SIDE_PX = 100;
/** Pictures listed per PDF at most; the rest are counted in a note. */
const MAX_IMAGES = 50;
/** Larger images (a 9000×9000 px plate) are not offered: their pixels alone would take hundreds of MB. */
export const MAX_PICTURE_PIXELS = 25_000_000;
/** An image covering this share of its page is the page itself (a scan or a background), not a figure on it. */
const WHOLE_PAGE_SHARE = 0.8;
/** Longest side of the PNG made for the model; it sees no more detail than this. */
const MAX_SHOWN_SIDE_PX = 2048;

const PATH = /^page-(\d+)-image-(\d+)\.png$/;

/** The entry of a PDF whose reading lists its pictures. */
export const PICTURE_LIST_PATH = 'pictures.txt';

/** What a PDF that offers PICTURE_LIST_PATH says about it, from the cheap estimate of its bytes. */
export function pictureListNote(estimated: number): string {
  return `it may hold pictures (about ${estimated} image${estimated === 1 ? '' : 's'} in its bytes, icons and scans among them): its entry ${PICTURE_LIST_PATH} lists them when opened, each then a file of its own that load_file shows`;
}

const LISTED = /^(page-\d+-image-\d+\.png) (\d+)×(\d+) px$/;

/** The listing PICTURE_LIST_PATH reads as: a line per picture, then the notes. */
export function formatPictureList({ entries, notes, sizes }: PictureList): string {
  if (entries.length === 0) return `No pictures of a listable size (at least ${MIN_SIDE_PX} px a side, not a whole page) on its pages with text.\n`;
  return ['Pictures on its pages, each a file of its own that load_file shows:', ...sizes, ...notes.slice(1)].join('\n') + '\n';
}

/** The pictures a listing (formatPictureList) names, as the PDF's contained files. */
export function parsePictureList(text: string): ContainedFile[] {
  return text.split('\n').flatMap((line) => {
    const match = LISTED.exec(line.trim());
    if (!match) return [];
    return [{ path: match[1]!, sizeBytes: Number(match[2]) * Number(match[3]) * 3, mimeType: 'image/png' }];
  });
}

function pdfImagePath(page: number, index: number): string {
  return `page-${page}-image-${index}.png`;
}

function parsePdfImagePath(path: string): { page: number; index: number } | undefined {
  const match = PATH.exec(path);
  return match ? { page: Number(match[1]), index: Number(match[2]) } : undefined;
}

/** The parts of a pdf.js page this module uses (pdf-parse types its document loosely). */
interface PdfPage {
  view: number[];
  objs: PdfObjects;
  commonObjs: PdfObjects;
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
  cleanup(): boolean | void;
}

interface PdfObjects {
  has(id: string): boolean;
  get(id: string, callback: (data: unknown) => void): void;
}

export interface PdfDocumentLike {
  numPages: number;
  getPage(pageNumber: number): Promise<unknown>;
}

interface PaintedImage {
  objectId: string;
  width: number;
  height: number;
}

/**
 * Listing is bounded so reading a PDF stays about as fast as its text: pdf.js decodes every image of a page while it
 * builds the page's operator list, and parses the page's content again. Past these, pictures are not listed and a
 * note says why (first measured: listing without bounds made the corpus's PDFs 5× slower to read).
 */
export const MAX_DECODED_PIXELS = 12_000_000;
export const MAX_PAGES_LOOKED_AT = 40;

export interface PictureEstimate {
  /** Image XObjects of a listable size. */
  count: number;
  /** Their pixels together (what listing decodes); indirect sizes count as MIN_SIDE_PX². */
  pixels: number;
}

/**
 * Cheap first look at the raw bytes: an image XObject is a stream, and streams are never packed into object
 * streams, so every image's dictionary ("/Subtype /Image … /Width 640 /Height 480") is in plain bytes.
 */
export function estimatePictures(bytes: Uint8Array): PictureEstimate {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const estimate = { count: 0, pixels: 0 };
  for (let at = buffer.indexOf('/Image'); at !== -1; at = buffer.indexOf('/Image', at + 6)) {
    const around = buffer.toString('latin1', Math.max(0, at - 600), Math.min(buffer.length, at + 600));
    const here = Math.min(at, 600);
    if (!/\/Subtype\s*$/.test(around.slice(0, here)) || /^\/Image[A-Za-z]/.test(around.slice(here))) continue;
    const width = /\/Width\s+(\d+)(\s+\d+\s+R)?/.exec(around);
    const height = /\/Height\s+(\d+)(\s+\d+\s+R)?/.exec(around);
    if (!width || !height || width[2] || height[2]) {
      estimate.count++;
      estimate.pixels += MIN_SIDE_PX * MIN_SIDE_PX;
      continue;
    }
    const [w, h] = [Number(width[1]), Number(height[1])];
    if (w < MIN_SIDE_PX || h < MIN_SIDE_PX) continue;
    estimate.count++;
    estimate.pixels += w * h;
  }
  return estimate;
}

export function mayHoldPictures(bytes: Uint8Array): boolean {
  return estimatePictures(bytes).count > 0;
}

/** The pictures of the given pages (those with a text layer), in page order, and a note when the cap cut some. */
export interface PictureList {
  entries: ContainedFile[];
  notes: string[];
  /** "page-3-image-1.png 640×480 px", one per entry. */
  sizes: string[];
}

export async function listPdfPictures(document: PdfDocumentLike, pageNumbers: number[]): Promise<PictureList> {
  const pdfjs = await loadPdfjs();
  const entries: ContainedFile[] = [];
  const sizes: string[] = [];
  let found = 0;
  for (const pageNumber of pageNumbers) {
    const page = (await document.getPage(pageNumber)) as PdfPage;
    let images: PaintedImage[];
    try {
      images = figuresOf(await page.getOperatorList(), page.view, pdfjs);
    } finally {
      // Frees the decoded images pdf.js keeps for drawing the page.
      page.cleanup();
    }
    images.forEach((image, i) => {
      found++;
      if (entries.length < MAX_IMAGES) {
        entries.push({
          path: pdfImagePath(pageNumber, i + 1),
          // The decoded pixels (RGB): the PNG made on demand is this or, usually, much less.
          sizeBytes: image.width * image.height * 3,
          mimeType: 'image/png',
        });
        sizes.push(`${pdfImagePath(pageNumber, i + 1)} ${image.width}×${image.height} px`);
      }
    });
  }
  const notes: string[] = [];
  if (entries.length) notes.push(`pictures on its pages, each a file of its own that load_file shows: ${sizes.join(', ')}`);
  if (found > entries.length) notes.push(`${found - entries.length} of ${found} pictures not listed (at most ${MAX_IMAGES} per PDF)`);
  return { entries, notes, sizes };
}

/** The figures a page paints, each image once, in drawing order: what page-N-image-K numbers. */
function figuresOf(ops: { fnArray: number[]; argsArray: unknown[][] }, view: number[], { OPS }: PdfjsConstants): PaintedImage[] {
  const pageArea = Math.abs((view[2]! - view[0]!) * (view[3]! - view[1]!));
  const stack: number[][] = [];
  let ctm = [1, 0, 0, 1, 0, 0];
  const seen = new Set<string>();
  const images: PaintedImage[] = [];
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    const args = ops.argsArray[i] ?? [];
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = multiply(ctm, args as number[]);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm);
      const matrix = args[0] as number[] | null | undefined;
      if (matrix && matrix.length === 6) ctm = multiply(ctm, Array.from(matrix));
    } else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.paintImageXObject) {
      const [objectId, width, height] = args as [string, number, number];
      if (typeof objectId !== 'string' || seen.has(objectId)) continue;
      seen.add(objectId);
      if (width < MIN_SIDE_PX || height < MIN_SIDE_PX || width * height > MAX_PICTURE_PIXELS) continue;
      // The image fills the unit square under the current matrix: its area on the page is the matrix determinant.
      const area = Math.abs(ctm[0]! * ctm[3]! - ctm[1]! * ctm[2]!);
      if (pageArea > 0 && area >= WHOLE_PAGE_SHARE * pageArea) continue;
      images.push({ objectId, width, height });
    }
  }
  return images;
}

function multiply(m: number[], n: number[]): number[] {
  const [a, b, c, d, e, f] = m as [number, number, number, number, number, number];
  const [a2, b2, c2, d2, e2, f2] = n as [number, number, number, number, number, number];
  return [a2 * a + b2 * c, a2 * b + b2 * d, c2 * a + d2 * c, c2 * b + d2 * d, e2 * a + f2 * c + e, e2 * b + f2 * d + f];
}

interface DecodedImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
  bitmap?: unknown;
}

/** One listed picture as PNG bytes, scaled down to MAX_SHOWN_SIDE_PX; `name` is the PDF's, for messages. */
export async function renderPdfPicture(document: PdfDocumentLike, name: string, path: string): Promise<Uint8Array> {
  const where = parsePdfImagePath(path);
  const missing = () => corruptError(`${name}/${path}`, `${path} is not a picture of ${name}`);
  if (!where || where.page < 1 || where.page > document.numPages) throw missing();
  const pdfjs = await loadPdfjs();
  const page = (await document.getPage(where.page)) as PdfPage;
  try {
    const image = figuresOf(await page.getOperatorList(), page.view, pdfjs)[where.index - 1];
    if (!image) throw missing();
    const objects = page.commonObjs.has(image.objectId) ? page.commonObjs : page.objs;
    const decoded = await new Promise<DecodedImage>((resolve) => objects.get(image.objectId, (data) => resolve(data as DecodedImage)));
    return await encodePng(decoded, pdfjs, `${name}/${path}`);
  } finally {
    page.cleanup();
  }
}

async function encodePng(image: DecodedImage, { ImageKind }: PdfjsConstants, name: string): Promise<Uint8Array> {
  const { createCanvas } = await loadCanvas();
  const { width, height, data, kind } = image;
  if (!data || !width || !height) throw corruptError(name, 'pdf.js could not decode the picture');
  const full = createCanvas(width, height);
  const context = full.getContext('2d');
  const pixels = context.createImageData(width, height);
  const rgba = pixels.data;
  if (kind === ImageKind.RGBA_32BPP) rgba.set(data.subarray(0, rgba.length));
  else if (kind === ImageKind.RGB_24BPP) {
    for (let i = 0, j = 0; j < rgba.length; i += 3, j += 4) {
      rgba[j] = data[i]!;
      rgba[j + 1] = data[i + 1]!;
      rgba[j + 2] = data[i + 2]!;
      rgba[j + 3] = 255;
    }
  } else if (kind === ImageKind.GRAYSCALE_1BPP) {
    // One bit per pixel, rows padded to whole bytes; 1 is white.
    const rowBytes = Math.ceil(width / 8);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const value = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
        const j = (y * width + x) * 4;
        rgba[j] = rgba[j + 1] = rgba[j + 2] = value;
        rgba[j + 3] = 255;
      }
    }
  } else throw corruptError(name, 'its pixel format is one I cannot convert');
  context.putImageData(pixels, 0, 0);
  const scale = Math.min(1, MAX_SHOWN_SIDE_PX / Math.max(width, height));
  if (scale === 1) return full.encode('png');
  const shown = createCanvas(Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)));
  shown.getContext('2d').drawImage(full, 0, 0, shown.width, shown.height);
  return shown.encode('png');
}
