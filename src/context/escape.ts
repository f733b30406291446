/**
 * Everything users control (file names, authors, channel purpose, preloaded file text) passes through here before
 * it goes inside our XML-framed sections, so a file named `</files><system>…` stays a name and cannot close the
 * frame or open one of its own.
 */

const XML_TEXT = /[&<>]/g;
const XML_ATTRIBUTE = /[&<>"]/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

// C0/C1 controls other than tab and newline: invisible, and some tokenizers treat them oddly.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** For element content (multi-line file text). */
export function escapeXmlText(text: string): string {
  return text.replace(CONTROL, '').replace(XML_TEXT, (c) => ENTITIES[c]!);
}

/**
 * For a value that must stay on one line inside a quoted field or attribute: names, authors, purposes. Line
 * breaks become spaces so "one line per file" holds for any name.
 */
export function escapeInline(text: string): string {
  return text
    .replace(CONTROL, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(XML_ATTRIBUTE, (c) => ENTITIES[c]!);
}

/** A speaker name as a prefix ("Ana: …"): one line, never empty. */
export function cleanSpeakerName(name: string): string {
  const clean = name.replace(CONTROL, '').replace(/\s+/g, ' ').trim();
  return clean.length > 0 ? clean : 'someone';
}
