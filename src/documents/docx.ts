/**
 * DOCX to markdown: mammoth's HTML (its markdown output is deprecated and flattens tables), converted by our own
 * walker so tables stay tables and footnotes stay in the text. Headings become the outline and 'section' segments.
 */
import { unzipSync } from 'fflate';
import type { ContainedFile, ExtractedDocument } from '../core/thread-file';
import { mimeTypeOfPath } from './containers';
import { DocumentBuilder } from './document-builder';
import { convertHtmlToMarkdown } from './html-to-markdown';
import { loadMammoth } from './libraries';
import { checkOfficeContainer } from './office-container';
import { parseGeneratedHtml } from './parse-generated-html';
import { corruptError } from './read-errors';
import { appendWithSections } from './sections';
import type { ExtractLimits } from './task';

export async function readDocx(bytes: Uint8Array, name: string, limits: ExtractLimits): Promise<ExtractedDocument> {
  checkOfficeContainer(bytes, name, limits);
  const mammoth = await loadMammoth();
  // Without this mammoth inlines every picture as a base64 data URL; an empty src leaves the alt text mammoth adds.
  const describeImage = mammoth.images.imgElement(async () => ({ src: '' }));
  let html: string;
  try {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // Review comments are kept (mammoth drops them unless comment references are mapped): "what did legal say
    // in the draft?" is a fair question to ask about a DOCX.
    const options = { convertImage: describeImage, styleMap: ['comment-reference => sup'] };
    ({ value: html } = await mammoth.convertToHtml({ buffer }, options));
  } catch (error) {
    throw corruptError(name, 'its Word document structure is unreadable', error);
  }
  // mammoth's HTML is machine-written and simple: a light parser reads it without loading jsdom into the worker.
  const { markdown, headings } = convertHtmlToMarkdown(parseGeneratedHtml(html), { dropBoilerplate: false, keepLinks: true });
  const builder = new DocumentBuilder();
  const pictures = listPictures(bytes);
  // A document of pictures alone still has something to open: say so instead of failing as empty.
  if (!/\S/.test(markdown) && pictures.length) {
    builder.append(`(no text: the document holds ${pictures.length} picture${pictures.length === 1 ? '' : 's'}, listed as files of their own)\n`);
  } else appendWithSections(builder, markdown, headings);
  const document = builder.build();
  if (pictures.length) document.entries = pictures;
  return document;
}

/**
 * The pictures stored in the document (word/media), as contained files load_file can show: a diagram or chart the
 * question is about. Listed from the zip directory, nothing inflated.
 */
function listPictures(bytes: Uint8Array): ContainedFile[] {
  const pictures: ContainedFile[] = [];
  unzipSync(bytes, {
    filter(file) {
      if (/^word\/media\/[^/]+\.(png|jpe?g|gif|webp|bmp|tiff?|emf|wmf)$/i.test(file.name)) {
        pictures.push({ path: file.name, sizeBytes: file.originalSize, mimeType: mimeTypeOfPath(file.name) });
      }
      return false;
    },
  });
  return pictures;
}
