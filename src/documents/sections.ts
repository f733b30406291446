/**
 * Heading-based 'section' segments and outline for formats whose only structure is headings (DOCX, HTML,
 * markdown). Sections split at the top two heading levels in use, so a report with one H1 title and many H2
 * chapters gets one segment per chapter rather than one for the whole document.
 */
import type { DocumentBuilder } from './document-builder';
import type { MarkdownHeading } from './html-to-markdown';

export function appendWithSections(builder: DocumentBuilder, markdown: string, headings: MarkdownHeading[]): void {
  const base = builder.offset;
  const topLevel = Math.min(...headings.map((heading) => heading.level));
  const splitLevels = headings.filter((heading) => heading.level <= topLevel + 1);
  let cursor = 0;
  let number = 0;
  if (splitLevels.length === 0 || /\S/.test(markdown.slice(0, splitLevels[0]!.offset))) {
    builder.startSegment('section', ++number, '§ (start)');
  }
  for (const heading of splitLevels) {
    builder.append(markdown.slice(cursor, heading.offset));
    cursor = heading.offset;
    builder.startSegment('section', ++number, `§ ${shorten(heading.title)}`);
  }
  builder.append(markdown.slice(cursor)).closeSegment();
  for (const heading of headings) builder.addHeading(heading.title, heading.level, base + heading.offset);
}

/** Labels are for citing ("§ Results"); a paragraph styled as a heading would make an unwieldy one. */
function shorten(title: string): string {
  return title.length <= 60 ? title : `${title.slice(0, 59).trimEnd()}…`;
}
