/**
 * Plain text, markdown, JSON, code and logs: decoded from whatever encoding they are in and returned as they are.
 * Markdown headings become the outline, so a long README can be navigated like a DOCX.
 */
import type { ExtractedDocument } from '../../core/thread-file';
import { decodeText } from './decode-text';
import { DocumentBuilder } from './document-builder';

export async function readText(bytes: Uint8Array, name: string): Promise<ExtractedDocument> {
  const { text, encoding } = decodeText(bytes);
  const normalized = text.replace(/\r\n?/g, '\n');
  const builder = new DocumentBuilder().append(normalized);
  if (/\.(md|markdown)$/i.test(name)) addMarkdownHeadings(builder, normalized);
  if (encoding !== 'utf-8') builder.addNote(`decoded from ${encoding}`);
  return builder.build();
}

function addMarkdownHeadings(builder: DocumentBuilder, text: string): void {
  let inFence = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) builder.addHeading(heading[2]!, heading[1]!.length, offset);
    offset += line.length + 1;
  }
}
