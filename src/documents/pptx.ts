/**
 * PPTX to text, slide by slide in presentation order: "## Slide N: title", the body text of every shape and
 * table, then the speaker notes ("Notes: …"). One 'slide' segment per slide; slide titles form the outline.
 */
import { unzipSync, strFromU8 } from 'fflate';
import type { ExtractedDocument } from '../core/thread-file';
import { DocumentBuilder } from './document-builder';
import { formatMarkdownTable } from './markdown-table';
import { checkOfficeContainer } from './office-container';
import { attribute, readParagraphs, readRelationships, relationshipsPathOf } from './ooxml-parts';
import { corruptError, noTextError } from './read-errors';
import type { ExtractLimits } from './task';

interface SlideContent {
  title: string;
  blocks: string[];
  hidden: boolean;
}

const presentationPath = 'ppt/presentation.xml';

export async function readPptx(bytes: Uint8Array, name: string, limits: ExtractLimits): Promise<ExtractedDocument> {
  checkOfficeContainer(bytes, name, limits);
  // Only XML parts are inflated; pictures and media, often most of a deck's bytes, stay compressed.
  const parts = unzipSync(bytes, { filter: (file) => /\.(xml|rels)$/.test(file.name) });
  const read = (path: string) => (parts[path] ? strFromU8(parts[path]) : undefined);
  const presentation = read(presentationPath);
  if (!presentation) throw corruptError(name, 'it has no ppt/presentation.xml part');

  const relationships = readRelationships(read(relationshipsPathOf(presentationPath)), presentationPath);
  const slidePaths = [...presentation.matchAll(/<p:sldId\b[^>]*>/g)]
    .map(([tag]) => relationships.get(attribute(tag, 'r:id') ?? ''))
    .filter((target) => target?.type === 'slide')
    .map((target) => target!.path);

  const builder = new DocumentBuilder();
  let slidesWithText = 0;
  slidePaths.forEach((slidePath, index) => {
    const number = index + 1;
    const slide = readSlide(read(slidePath) ?? '');
    const notes = readNotes(slidePath, read);
    const heading = `## Slide ${number}${slide.title ? `: ${slide.title}` : ''}${slide.hidden ? ' (hidden)' : ''}`;
    builder.endBlock().startSegment('slide', number, `slide ${number}`);
    builder.appendHeading(heading, slide.title || `Slide ${number}`, 1);
    for (const block of slide.blocks) builder.appendBlock(block);
    if (notes) builder.appendBlock(`Notes: ${notes}`);
    if (slide.title || slide.blocks.length > 0 || notes) slidesWithText++;
  });
  // "## Slide N" headings alone are not content: a deck of pictures has no text to read.
  if (slidesWithText === 0) throw noTextError(name);
  builder.append('\n');
  return builder.build(slidePaths.length);
}

function readSlide(xml: string): SlideContent {
  let title = '';
  const blocks: string[] = [];
  for (const [element] of xml.matchAll(/<p:sp\b[\s\S]*?<\/p:sp>|<a:tbl\b[\s\S]*?<\/a:tbl>/g)) {
    if (element.startsWith('<a:tbl')) {
      const table = readTable(element);
      if (table) blocks.push(table);
      continue;
    }
    const placeholder = /<p:ph\b[^>]*>/.exec(element)?.[0];
    const type = placeholder ? (attribute(placeholder, 'type') ?? 'body') : undefined;
    if (type === 'sldNum' || type === 'dt' || type === 'ftr') continue;
    const lines = readParagraphs(element);
    if (lines.length === 0) continue;
    if (!title && (type === 'title' || type === 'ctrTitle')) title = lines.join(' ').replace(/\s+/g, ' ');
    else blocks.push(lines.join('\n'));
  }
  return { title, blocks, hidden: /<p:sld\b[^>]*\sshow="0"/.test(xml) };
}

function readTable(xml: string): string {
  const rows = [...xml.matchAll(/<a:tr\b[\s\S]*?<\/a:tr>/g)].map(([row]) =>
    [...row.matchAll(/<a:tc\b[\s\S]*?<\/a:tc>|<a:tc\b[^>]*\/>/g)].map(([cell]) => readParagraphs(cell).join('\n')),
  );
  return formatMarkdownTable(rows.filter((row) => row.some(Boolean)));
}

/** Speaker notes live in the notes slide's body placeholder; the rest of that part is the slide image and number. */
function readNotes(slidePath: string, read: (path: string) => string | undefined): string {
  const relationships = readRelationships(read(relationshipsPathOf(slidePath)), slidePath);
  const notesPath = [...relationships.values()].find((target) => target.type === 'notesSlide')?.path;
  const xml = notesPath ? read(notesPath) : undefined;
  if (!xml) return '';
  const lines: string[] = [];
  for (const [shape] of xml.matchAll(/<p:sp\b[\s\S]*?<\/p:sp>/g)) {
    const placeholder = /<p:ph\b[^>]*>/.exec(shape)?.[0];
    if (placeholder && attribute(placeholder, 'type') === 'body') lines.push(...readParagraphs(shape));
  }
  return lines.join('\n');
}
