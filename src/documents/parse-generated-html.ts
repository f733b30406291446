/**
 * A parser for HTML that a program wrote, not a person: mammoth's output is well-formed, quoted and escaped, with
 * a few void tags. Enough for that, and far lighter than jsdom; web pages still go through jsdom (html.ts).
 */
import { decodeEntities } from './decode-entities';
import type { MarkupElement, MarkupNode } from './markup';

const voidTags = new Set(['br', 'img', 'input', 'hr', 'col', 'meta', 'link', 'wbr']);
const token = /<\/([a-zA-Z][\w-]*)\s*>|<([a-zA-Z][\w-]*)((?:\s+[^\s=/>]+(?:\s*=\s*"[^"]*")?)*)\s*\/?>|<!--[\s\S]*?-->|([^<]+|<)/g;
const attributePattern = /([^\s=/>]+)(?:\s*=\s*"([^"]*)")?/g;

class LightText implements MarkupNode {
  readonly nodeType = 3;
  readonly childNodes: MarkupNode[] = [];
  constructor(readonly data: string) {}
}

class LightElement implements MarkupElement {
  readonly nodeType = 1;
  readonly childNodes: MarkupNode[] = [];
  readonly children: LightElement[] = [];

  constructor(
    readonly localName: string,
    private readonly attributes: Map<string, string>,
    readonly parentElement: LightElement | null,
  ) {}

  get textContent(): string {
    return this.childNodes.map((node) => (node instanceof LightText ? node.data : (node as LightElement).textContent)).join('');
  }

  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }

  hasAttribute(name: string): boolean {
    return this.attributes.has(name);
  }

  append(node: LightElement | LightText): void {
    this.childNodes.push(node);
    if (node instanceof LightElement) this.children.push(node);
  }
}

/** The markup's nodes under one root element. Stray closing tags are ignored; unclosed ones close at the end. */
export function parseGeneratedHtml(html: string): MarkupElement {
  const root = new LightElement('body', new Map(), null);
  let open = root;
  for (const [, closing, tag, attributes, text] of html.matchAll(token)) {
    if (text !== undefined) open.append(new LightText(decodeEntities(text)));
    else if (closing !== undefined) {
      const name = closing.toLowerCase();
      for (let element: LightElement | null = open; element && element !== root; element = element.parentElement) {
        if (element.localName === name) {
          open = element.parentElement ?? root;
          break;
        }
      }
    } else if (tag !== undefined) {
      const element = new LightElement(tag.toLowerCase(), readAttributes(attributes ?? ''), open);
      open.append(element);
      if (!voidTags.has(element.localName)) open = element;
    }
  }
  return root;
}

function readAttributes(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name, value] of source.matchAll(attributePattern)) attributes.set(name!.toLowerCase(), decodeEntities(value ?? ''));
  return attributes;
}
