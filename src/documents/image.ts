/**
 * An image of text (a photographed whiteboard, a screenshot, a faxed page) to text by OCR, as one page. An image
 * whose recognition is mostly noise (a photo, a diagram) is not text: it fails as 'empty', and the picture itself
 * stays available to the model through load_file.
 */
import type { ExtractedDocument } from '../core/thread-file';
import { DocumentBuilder } from './document-builder';
import { ocrNote, startOcrEngine, type OcrSettings } from './ocr';
import { corruptError, unsupportedError } from './read-errors';
import { FileReadError } from '../core/thread-file';

/** Below this mean confidence, or with fewer word characters, Tesseract was reading shapes, not words. */
const MIN_CONFIDENCE = 40;
const MIN_WORD_CHARS = 8;

export async function readImage(bytes: Uint8Array, name: string, ocr: OcrSettings): Promise<ExtractedDocument> {
  if (ocr.maxPages <= 0 || ocr.languages.length === 0) {
    throw unsupportedError(name, 'an image, and OCR is off (OCR_MAX_PAGES=0)');
  }
  const engine = await startOcrEngine(ocr);
  let recognised;
  try {
    recognised = await engine.recognise(bytes);
  } catch (error) {
    throw corruptError(name, 'its image data could not be decoded', error);
  } finally {
    await engine.close().catch(() => {});
  }
  const wordChars = recognised.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  if (recognised.confidence < MIN_CONFIDENCE || wordChars < MIN_WORD_CHARS) {
    throw new FileReadError(
      'empty',
      `${name} is a picture without text I could recognise; load_file shows it to me as an image instead.`,
    );
  }
  return new DocumentBuilder()
    .startSegment('page', 1, 'p. 1')
    .append(`${recognised.text}\n`)
    .addNote(ocrNote(undefined, ocr.languages, recognised.confidence))
    .build(1);
}
