/**
 * Document extraction off the main thread: PDF, DOCX, PPTX, XLSX, CSV, HTML and text to markdown-ish text with
 * pages/sections/sheets/slides as segments. Failures are FileReadErrors whose message can be posted as it is.
 */
export { createDocumentExtractor } from './create-document-extractor';
export type { DocumentExtractor, ExtractInput, ExtractorOptions, PdfPictureInput } from './create-document-extractor';
export { detectDocumentKind } from './detect-kind';
export type { DocumentKind } from './detect-kind';
export { checkOcrLanguages, describeMissingOcrLanguages, resolveOcrSettings } from './ocr-languages';
export type { OcrSettings } from './ocr';
