/**
 * Web pages (saved HTML) to markdown: the readable part only. Scripts, styles, navigation and site chrome are
 * dropped; when the page marks its main content (<main>, role=main, a single <article>) only that is read.
 */
import type { ExtractedDocument } from '../core/thread-file';
import { decodeText } from './decode-text';
import { DocumentBuilder } from './document-builder';
import { convertHtmlToMarkdown } from './html-to-markdown';
import { loadJsdom } from './libraries';
import { noTextError } from './read-errors';
import { appendWithSections } from './sections';

export async function readHtml(bytes: Uint8Array, name: string): Promise<ExtractedDocument> {
  const { text: html, encoding } = decodeText(bytes, declaredCharset(bytes));
  const { JSDOM, VirtualConsole } = await loadJsdom();
  // A silent console: jsdom otherwise prints "Could not parse CSS stylesheet" for every modern stylesheet.
  const dom = new JSDOM(html, { virtualConsole: new VirtualConsole() });
  try {
    const document = dom.window.document;
    const root = findMainContent(document) ?? document.body ?? document.documentElement;
    const { markdown, headings } = convertHtmlToMarkdown(root, { dropBoilerplate: true, keepLinks: false });
    if (!/\S/.test(markdown)) throw noTextError(name);
    const builder = new DocumentBuilder();
    const title = document.title.trim();
    // The <title> stands in for a missing <h1>; beside one it is mostly the same words plus the site's name.
    if (title && !headings.some((heading) => heading.level === 1)) builder.appendHeading(`# ${title}\n\n`, title, 1);
    appendWithSections(builder, markdown, headings);
    if (encoding !== 'utf-8') builder.addNote(`decoded from ${encoding}`);
    return builder.build();
  } finally {
    dom.window.close();
  }
}

/**
 * Found with getElementsByTagName, not querySelector: jsdom's selector engine keeps every document it has
 * queried alive, which leaked ~60 MB per Wikipedia page in a long-lived worker.
 */
function findMainContent(document: Document): Element | undefined {
  const main = document.getElementsByTagName('main')[0];
  if (main) return main;
  const byRole = findElement(document.documentElement, (element) => element.getAttribute('role') === 'main');
  if (byRole) return byRole;
  const articles = document.getElementsByTagName('article');
  return articles.length === 1 ? articles[0] : undefined;
}

/** Depth-first over element children; indexing jsdom's live getElementsByTagName('*') is quadratic. */
function findElement(root: Element, matches: (element: Element) => boolean): Element | undefined {
  const stack: Element[] = [root];
  for (let element = stack.pop(); element; element = stack.pop()) {
    if (matches(element)) return element;
    for (let child = element.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
  }
  return undefined;
}

/** The charset a page declares in its first bytes (<meta charset> or http-equiv), used when it is not UTF-8. */
function declaredCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1];
}
