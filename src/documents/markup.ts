/**
 * The slice of the DOM the markdown walker reads. jsdom's nodes fit it as they are; parse-generated-html.ts
 * builds light nodes that fit it too, so DOCX conversion needs no jsdom (70 MB per worker just to load).
 */

export interface MarkupNode {
  /** 1 for elements, 3 for text; anything else (comments…) is skipped. */
  readonly nodeType: number;
  readonly childNodes: ArrayLike<MarkupNode>;
}

export interface MarkupText extends MarkupNode {
  readonly data: string;
}

export interface MarkupElement extends MarkupNode {
  readonly localName: string;
  readonly children: ArrayLike<MarkupElement>;
  readonly parentElement: MarkupElement | null;
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
}

export function isElement(node: MarkupNode): node is MarkupElement {
  return node.nodeType === 1;
}

export function isText(node: MarkupNode): node is MarkupText {
  return node.nodeType === 3;
}

export function hasClass(element: MarkupElement, name: string): boolean {
  return (element.getAttribute('class') ?? '').split(/\s+/).includes(name);
}
