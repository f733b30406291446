/**
 * Just enough XML for PowerPoint parts: relationships, attributes and DrawingML paragraphs. Regular expressions
 * suffice because these parts are machine-written and the elements we read never nest in themselves.
 */
import { posix } from 'node:path';
import { decodeEntities } from './decode-entities';

/** Relationship id → package path of its target, resolved against the part that owns the .rels file. */
export function readRelationships(relsXml: string | undefined, ownerPath: string): Map<string, { type: string; path: string }> {
  const relationships = new Map<string, { type: string; path: string }>();
  for (const [tag] of (relsXml ?? '').matchAll(/<Relationship\b[^>]*>/g)) {
    const id = attribute(tag, 'Id');
    const target = attribute(tag, 'Target');
    if (!id || !target || attribute(tag, 'TargetMode') === 'External') continue;
    const path = target.startsWith('/') ? target.slice(1) : posix.join(posix.dirname(ownerPath), target);
    relationships.set(id, { type: attribute(tag, 'Type')?.split('/').pop() ?? '', path });
  }
  return relationships;
}

/** The .rels part that belongs to a part: ppt/slides/slide1.xml → ppt/slides/_rels/slide1.xml.rels. */
export function relationshipsPathOf(partPath: string): string {
  return posix.join(posix.dirname(partPath), '_rels', `${posix.basename(partPath)}.rels`);
}

export function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
}

/** Each <a:p> of a text body as one line: runs joined, <a:br/> as a line break, tabs kept. */
export function readParagraphs(xml: string): string[] {
  const lines: string[] = [];
  for (const [paragraph] of xml.matchAll(/<a:p\b[^>]*?(?:\/>|>[\s\S]*?<\/a:p>)/g)) {
    let line = '';
    for (const [piece, text] of paragraph.matchAll(/<a:t(?:\s[^>]*)?>([^<]*)<\/a:t>|<a:br\b[^>]*\/>|<a:tab\b[^>]*\/>/g)) {
      if (text !== undefined) line += decodeEntities(text);
      else line += piece.startsWith('<a:br') ? '\n' : '\t';
    }
    if (line.trim()) lines.push(line.trim());
  }
  return lines;
}
