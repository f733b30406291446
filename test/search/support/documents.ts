/** Small ExtractedDocuments built by hand, shaped the way the extractor shapes them. */
import type { ExtractedDocument, TextSegment } from '../../../src/core/thread-file';

/** A paged document: each page preceded by the extractor's "--- page N ---" marker, as in its PDF output. */
export function pagedDocument(pages: string[]): ExtractedDocument {
  let text = '';
  const segments: TextSegment[] = [];
  pages.forEach((page, i) => {
    if (text) text += '\n\n';
    const start = text.length;
    text += `--- page ${i + 1} ---\n${page}`;
    segments.push({ kind: 'page', number: i + 1, label: `p. ${i + 1}`, start, end: text.length });
  });
  return { text, segments, outline: [], notes: [], pageCount: pages.length };
}

/** A document of sections, each starting with its markdown heading, as DOCX and HTML come out. */
export function sectionedDocument(sections: Array<{ title: string; body: string }>): ExtractedDocument {
  let text = '';
  const segments: TextSegment[] = [];
  sections.forEach((section, i) => {
    if (text) text += '\n\n';
    const start = text.length;
    text += `# ${section.title}\n\n${section.body}`;
    segments.push({ kind: 'section', number: i + 1, label: `§ ${section.title}`, start, end: text.length });
  });
  return { text, segments, outline: [], notes: [] };
}

export function plainDocument(text: string): ExtractedDocument {
  return { text, segments: [], outline: [], notes: [] };
}

/** Sentences about a topic, so a page has a realistic number of tokens. */
export function filler(topic: string, sentences: number): string {
  let text = '';
  for (let i = 0; i < sentences; i += 1) {
    text += `Sentence ${i + 1} discusses ${topic} in some detail, with figures, caveats and a short example.`;
    if (i < sentences - 1) text += i % 4 === 3 ? '\n\n' : ' ';
  }
  return text;
}
