/**
 * extract_file(id): a document (PDF, DOCX, PPTX, XLSX, HTML…) to plain text, kept as a new virtual file ("F1.txt")
 * that every file tool accepts. The result is a map of the text — size, pages, outline, a short preview — rather
 * than the text itself, so even a huge extraction costs little context; small ones come inline.
 */
import { z } from 'zod';
import { formatCount } from '../core/format';
import { frameFileData, quoteName } from './frame-file-data';
import { progressName } from './progress-name';
import { describePageCount, segmentAt } from './text-range';
import type { ExtractedDocument } from '../core/thread-file';
import type { Tool } from './tool';
import { describeIfTable } from './table-summary';

interface ExtractFileOptions {
  /** Texts up to this many characters come back whole. Default 2,000. */
  inlineChars?: number;
  /** Characters of preview for larger texts. Default 600. */
  previewChars?: number;
  /** Outline entries listed at most. Default 40. */
  outlineEntries?: number;
}

const parameters = z.object({
  id: z.string().min(1).describe('File id from the files list, e.g. "F1".'),
});

function createExtractFileTool(options: ExtractFileOptions = {}): Tool<z.infer<typeof parameters>> {
  const inlineChars = options.inlineChars ?? 2_000;
  const previewChars = options.previewChars ?? 600;
  const outlineEntries = options.outlineEntries ?? 40;
  return {
    name: 'extract_file',
    description: [
      'Converts a document (PDF — scans by OCR —, DOCX, PPTX, XLSX, DOC/XLS/PPT, CSV, HTML, canvases, emails, zips…) to',
      'plain text and registers the text as a new virtual',
      'file, e.g. "F1.txt", that load_file, peek_file and search_file accept. Returns the new id, its size in characters,',
      'page/slide/sheet count, an outline (headings, slide titles or sheet names, each with its character offset, capped),',
      `any notes on what was left out, and a short preview in <file_data> tags; texts under ${formatCount(inlineChars)}`,
      'characters come back whole. Use it first on any PDF, DOCX or PPTX you need to work with. Files inside a zip or',
      'email, pictures inside a DOCX and figures on PDF pages then appear in the files list with ids like "F3/logs/app.log"',
      'or "F2/page-3-image-1.png" (load_file shows a picture). A file listed as',
      '"extracting" is being read already: calling this waits for that read.',
    ].join(' '),
    parameters,
    describeProgress: ({ id }, context) => `extracting text from ${progressName(context.files, id)}…`,

    async execute({ id }, context) {
      const source = context.files.get(id);
      const { file, document } = await context.files.extract(source.id, context.signal);
      const { text } = document;
      context.recordActivity(file.id === source.id ? `${file.id} (extracted)` : `${source.id} → ${file.id}`);
      const pages = describePageCount(document);
      const size = `${formatCount(text.length)} characters${pages ? `, ${pages}` : ''}`;
      const lines = [
        file.id === source.id
          ? `${file.id} ${quoteName(file.name)} is already extracted text: ${size}.`
          : `${source.id} ${quoteName(source.name)} is now also ${file.id}, its extracted text: ${size}.`,
      ];
      if (document.notes.length) lines.push(`Notes: ${document.notes.join('; ')}`);
      const table = await describeIfTable(source, context);
      if (table) lines.push(table);
      const outline = renderOutline(document, outlineEntries);
      if (text.length <= inlineChars) {
        lines.push(frameFileData({ file, content: text }));
        return lines.join('\n');
      }
      const quoted = JSON.stringify(file.id);
      lines.push(`Read on with peek_file(${quoted}, 0, 8000), search_file(${quoted}, "<question>"), or load_file(${quoted}) if it fits.`);
      // Headings are the file's words too: framed like the preview.
      const frames = [];
      if (outline) frames.push(frameFileData({ file, content: outline.body, attributes: { part: outline.label } }));
      frames.push(
        frameFileData({
          file,
          content: text.slice(0, previewChars),
          attributes: { part: `preview, first ${formatCount(previewChars)} characters` },
          withoutNotice: frames.length > 0,
        }),
      );
      lines.push(...frames);
      return lines.join('\n');
    },
  };
}

export const extractFileTool = createExtractFileTool();

/** One line per heading, indented by level, with where it sits; capped. */
function renderOutline(document: ExtractedDocument, max: number): { label: string; body: string } | undefined {
  if (document.outline.length === 0) return undefined;
  const body = document.outline.slice(0, max).map((entry) => {
    const where = segmentAt(document, entry.offset)?.label;
    const title = entry.title.replace(/\s+/g, ' ').trim().slice(0, 120);
    return `${'  '.repeat(Math.max(0, entry.level - 1))}- ${title} [char ${entry.offset}${where ? `, ${where}` : ''}]`;
  });
  const count = document.outline.length > max ? `, first ${max} of ${formatCount(document.outline.length)}` : '';
  return { label: `outline${count}`, body: body.join('\n') };
}
