/**
 * PDF to text with one "--- page N ---" marker line per page and one 'page' segment per page (label "p. N").
 * Pages without text are kept as markers so page numbers stay true; a PDF where every page is empty is a scan.
 */
import type { ExtractedDocument } from '../../core/thread-file';
import { DocumentBuilder } from './document-builder';
import { cMapUrl, loadPdfParse } from './pdf-engine';
import { corruptError, emptyFileError, encryptedError, noTextLayerError } from './read-errors';

function pageMarker(pageNumber: number): string {
  return `--- page ${pageNumber} ---`;
}

const emptyPageText = '(no text on this page: images only)';

export async function readPdf(bytes: Uint8Array, name: string): Promise<ExtractedDocument> {
  if (bytes.length === 0) throw emptyFileError(name);
  const endsProperly = hasEndOfFileMarker(bytes);
  const { PDFParse } = await loadPdfParse();
  const parser = new PDFParse({
    data: bytes,
    cMapUrl,
    cMapPacked: true,
    // Text only: no font faces, no eval'd glyph programs, no system fonts, no canvas work.
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
  });
  try {
    const result = await parser.getText({ pageJoiner: '' });
    return buildDocument(result.pages, result.total, name);
  } catch (error) {
    throw classifyPdfError(error, name, endsProperly);
  } finally {
    await parser.destroy().catch(() => {});
  }
}

function buildDocument(pages: Array<{ num: number; text: string }>, total: number, name: string): ExtractedDocument {
  const builder = new DocumentBuilder();
  const emptyPages: number[] = [];
  for (const page of pages) {
    const text = page.text.replace(/[ \t]+\n/g, '\n').trim();
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
  if (emptyPages.length > 0) {
    builder.addNote(`${emptyPages.length} of ${total} pages have no text layer (images only): ${formatPageList(emptyPages)}`);
  }
  return builder.build(total);
}

function classifyPdfError(error: unknown, name: string, endsProperly: boolean): Error {
  const kind = (error as { name?: string } | null)?.name;
  if (kind === 'PasswordException') return encryptedError(name);
  if (kind === 'InvalidPDFException' || kind === 'FormatError' || kind === 'UnknownErrorException') {
    return corruptError(name, endsProperly ? 'its PDF structure is invalid' : 'the file is cut off before its end', error);
  }
  return error instanceof Error ? error : new Error(String(error));
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
