/**
 * Which elements of a web page are not its content. Scripts and styles never are; navigation, site header and
 * footer, forms and known boilerplate classes (Wikipedia's edit links and navboxes among them) are dropped from
 * web pages but kept in DOCX, where mammoth never produces them by accident.
 */

import { hasClass, type MarkupElement } from './markup';

const neverText = new Set('script style noscript template head title meta link svg canvas iframe object embed'.split(' '));
const chromeTags = new Set('nav form button select input textarea aside'.split(' '));
const chromeRoles = new Set(['navigation', 'banner', 'contentinfo', 'search', 'complementary']);
const chromeClasses = ['navbox', 'vertical-navbox', 'mw-editsection', 'mw-jump-link', 'noprint', 'catlinks', 'printfooter'];

export function isNeverText(element: MarkupElement): boolean {
  return neverText.has(element.localName);
}

export function isPageChrome(element: MarkupElement): boolean {
  const tag = element.localName;
  if (element.hasAttribute('hidden') || element.getAttribute('aria-hidden') === 'true') return true;
  if (chromeTags.has(tag) || chromeRoles.has(element.getAttribute('role') ?? '')) return true;
  if ((tag === 'header' || tag === 'footer') && !isInsideMainContent(element)) return true;
  return chromeClasses.some((name) => hasClass(element, name));
}

/** A hand-written closest(): jsdom's selector engine would keep the document alive (see html.ts). */
function isInsideMainContent(element: MarkupElement): boolean {
  for (let node = element.parentElement; node; node = node.parentElement) {
    if (node.localName === 'article' || node.localName === 'main' || node.getAttribute('role') === 'main') return true;
  }
  return false;
}
