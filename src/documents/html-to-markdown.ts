/**
 * A DOM tree to markdown, walked block by block: jsdom has no innerText and textContent runs paragraphs, cells and
 * list items together. Headings come back with their offsets in the markdown, for the outline.
 */
import { readTableGrid } from './html-table-grid';
import { formatMarkdownTable } from './markdown-table';
import { isElement, isText, type MarkupElement, type MarkupNode } from './markup';
import { isNeverText, isPageChrome } from './page-chrome';

export interface MarkdownHeading {
  title: string;
  level: number;
  offset: number;
}

export interface ConvertOptions {
  /** Drop navigation, scripts, site header/footer and other page chrome (web pages; not DOCX). */
  dropBoilerplate: boolean;
  /** Keep absolute link targets as [text](url). */
  keepLinks: boolean;
}

const blockTags = new Set(
  ('address article aside blockquote body center dd details dialog div dl dt fieldset figcaption figure footer ' +
    'form h1 h2 h3 h4 h5 h6 header hgroup hr li main nav ol p pre section summary table tbody td tfoot th thead tr ul')
    .split(' '),
);

/** Marks a heading's place in the joined text; replaced by nothing once its offset is known. */
const headingMark = /\uE000(\d+)\uE001/g;

export function convertHtmlToMarkdown(root: MarkupNode, options: ConvertOptions): { markdown: string; headings: MarkdownHeading[] } {
  const walker = new MarkdownWalker(options);
  const joined = walker.renderChildren(root).join('\n\n');
  const headings: MarkdownHeading[] = [];
  let removed = 0;
  const markdown = joined.replace(headingMark, (mark, index: string, at: number) => {
    const heading = walker.headings[Number(index)]!;
    headings.push({ ...heading, offset: at - removed });
    removed += mark.length;
    return '';
  });
  return { markdown, headings };
}

class MarkdownWalker {
  readonly headings: Array<{ title: string; level: number }> = [];

  constructor(private readonly options: ConvertOptions) {}

  renderChildren(parent: MarkupNode): string[] {
    const blocks: string[] = [];
    let inline = '';
    const flush = () => {
      const text = tidyInline(inline);
      if (text) blocks.push(text);
      inline = '';
    };
    for (const child of Array.from(parent.childNodes)) {
      if (isText(child)) inline += collapse(child.data);
      else if (isElement(child) && !this.isDropped(child)) {
        if (blockTags.has(child.localName)) {
          flush();
          blocks.push(...this.renderBlock(child));
        } else inline += this.renderInline(child);
      }
    }
    flush();
    return blocks;
  }

  private renderBlock(element: MarkupElement): string[] {
    const tag = element.localName;
    if (/^h[1-6]$/.test(tag)) return this.renderHeading(element, Number(tag[1]));
    if (tag === 'ul' || tag === 'ol') return this.renderList(element);
    if (tag === 'table') return this.renderTable(element);
    if (tag === 'pre') return [`\`\`\`\n${element.textContent?.replace(/\n$/, '') ?? ''}\n\`\`\``];
    if (tag === 'hr') return ['---'];
    if (tag === 'blockquote') {
      const quoted = this.renderChildren(element).join('\n\n');
      return quoted ? [quoted.replace(/^/gm, '> ')] : [];
    }
    if (tag === 'dl') return this.renderDefinitions(element);
    return this.renderChildren(element);
  }

  private renderHeading(element: MarkupElement, level: number): string[] {
    const title = tidyInline(this.renderInline(element)).replace(/\n/g, ' ');
    if (!title) return [];
    this.headings.push({ title, level });
    return [`\uE000${this.headings.length - 1}\uE001${'#'.repeat(level)} ${title}`];
  }

  private renderList(list: MarkupElement): string[] {
    const ordered = list.localName === 'ol';
    let number = Number(list.getAttribute('start') ?? 1) || 1;
    const items: string[] = [];
    for (const item of Array.from(list.children)) {
      if (item.localName !== 'li' || this.isDropped(item)) continue;
      // Word footnotes (mammoth: <li id="footnote-3">) read as "[3] text", matching the "[3]" left in the body.
      const footnote = /^(?:foot|end)note-(\d+)$/.exec(item.getAttribute('id') ?? '');
      const marker = footnote ? `[${footnote[1]}] ` : ordered ? `${number++}. ` : '- ';
      const body = this.renderChildren(item).join('\n');
      if (!body) continue;
      items.push(marker + body.replace(/\n(?=.)/g, `\n${' '.repeat(marker.length)}`));
    }
    return items.length ? [items.join('\n')] : [];
  }

  /** "Term: definition" (Word comments arrive from mammoth as <dt>Comment [AB1]</dt><dd>…</dd>). */
  private renderDefinitions(list: MarkupElement): string[] {
    const blocks: string[] = [];
    let term = '';
    for (const child of Array.from(list.children)) {
      if (this.isDropped(child)) continue;
      if (child.localName === 'dt') {
        if (term) blocks.push(term);
        term = tidyInline(this.renderInline(child));
        continue;
      }
      const [first = '', ...rest] = this.renderChildren(child);
      blocks.push(term && first ? `${term}: ${first}` : term || first, ...rest);
      term = '';
    }
    if (term) blocks.push(term);
    return blocks.filter(Boolean);
  }

  private renderTable(table: MarkupElement): string[] {
    const grid = readTableGrid(table, (cell) => tidyInline(this.renderChildren(cell).join(' ')));
    const captionElement = Array.from(table.children).find((child) => child.localName === 'caption');
    const caption = captionElement ? tidyInline(this.renderInline(captionElement)) : '';
    const width = Math.max(0, ...grid.map((row) => row.length));
    // Single-column tables are layout, not data: their cells read better as ordinary paragraphs.
    if (width <= 1) return [caption, ...grid.flat()].filter(Boolean);
    return [caption, formatMarkdownTable(grid)].filter(Boolean);
  }

  private renderInline(element: MarkupElement): string {
    if (this.isDropped(element)) return '';
    const tag = element.localName;
    if (tag === 'br') return '\n';
    if (tag === 'img') {
      const alt = element.getAttribute('alt')?.trim();
      return alt ? `[image: ${collapse(alt)}]` : '';
    }
    let text = '';
    for (const child of Array.from(element.childNodes)) {
      if (isText(child)) text += collapse(child.data);
      else if (isElement(child)) {
        const inner = this.renderInline(child);
        text += blockTags.has(child.localName) ? ` ${inner} ` : inner;
      }
    }
    if (tag === 'a') return this.renderLink(element, text);
    return text;
  }

  private renderLink(anchor: MarkupElement, text: string): string {
    const href = anchor.getAttribute('href') ?? '';
    // Word footnote and comment back-links ("↑") point back into the body: noise once the note is in the text.
    if (/^#((foot|end)note|comment)-ref-/.test(href)) return '';
    if (!this.options.keepLinks || !/^https?:\/\//i.test(href) || !text.trim() || text.trim() === href) return text;
    return `[${text.trim()}](${href})`;
  }

  private isDropped(element: MarkupElement): boolean {
    return isNeverText(element) || (this.options.dropBoilerplate && isPageChrome(element));
  }
}

/** Source whitespace (including no-break spaces) is layout, not content; only <br> makes a line break. */
function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function tidyInline(text: string): string {
  return text.replace(/ *\n */g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}
