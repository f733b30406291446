/**
 * Builds an ExtractedDocument while text is appended, so segment and outline offsets are taken from the text as
 * it grows and cannot drift from it.
 */
import type { ExtractedDocument, OutlineEntry, TextSegment } from '../core/thread-file';

export class DocumentBuilder {
  private readonly parts: string[] = [];
  private length = 0;
  private trailingNewlines = 0;
  private readonly segments: TextSegment[] = [];
  private readonly outline: OutlineEntry[] = [];
  private readonly notes: string[] = [];
  private open: Omit<TextSegment, 'end'> | undefined;

  get offset(): number {
    return this.length;
  }

  append(text: string): this {
    if (!text) return this;
    this.parts.push(text);
    this.length += text.length;
    const trailing = text.length - text.replace(/\n+$/, '').length;
    this.trailingNewlines = trailing === text.length ? this.trailingNewlines + trailing : trailing;
    return this;
  }

  /** Appends `text` as a block of its own: separated from what came before by one blank line. */
  appendBlock(text: string): this {
    return this.endBlock().append(text);
  }

  /** Ends the text so far with a blank line (unless empty or already so), so the next text starts a block. */
  endBlock(): this {
    if (this.length === 0) return this;
    return this.append('\n'.repeat(Math.max(0, 2 - this.trailingNewlines)));
  }

  /** Appends a heading line as a block and puts it in the outline, at the line's first character. */
  appendHeading(line: string, title: string, level: number): this {
    this.endBlock().addHeading(title, level);
    return this.append(line);
  }

  /** Closes the current segment (if any) and opens a new one at the current offset. */
  startSegment(kind: TextSegment['kind'], number: number, label: string): this {
    this.closeSegment();
    this.open = { kind, number, label, start: this.length };
    return this;
  }

  closeSegment(): this {
    if (this.open) this.segments.push({ ...this.open, end: this.length });
    this.open = undefined;
    return this;
  }

  addHeading(title: string, level: number, offset = this.length): this {
    this.outline.push({ title, level, offset });
    return this;
  }

  addNote(note: string): this {
    this.notes.push(note);
    return this;
  }

  build(pageCount?: number): ExtractedDocument {
    this.closeSegment();
    const document: ExtractedDocument = {
      text: this.parts.join(''),
      outline: this.outline,
      segments: this.segments,
      notes: this.notes,
    };
    if (pageCount !== undefined) document.pageCount = pageCount;
    return document;
  }
}
