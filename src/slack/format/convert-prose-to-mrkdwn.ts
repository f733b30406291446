import { escapeMrkdwn } from './escape-mrkdwn';
import { findCodeSpans } from './find-code-spans';

/**
 * Markers that stand in for mrkdwn's `*`, `_` and `~` while markdown's own asterisks and underscores are still being
 * read, and for stashed pieces (code, links) that no later rule may touch. Private-use characters, removed from the
 * input first, so they cannot collide with what the model wrote.
 */
const STASH_OPEN = '\uE000';
const STASH_CLOSE = '\uE001';
const BOLD = '\uE002';
const ITALIC = '\uE003';
const STRIKE = '\uE004';
const PRIVATE = /[\uE000-\uE004]/g;

const ABSOLUTE_URL = /^(?:https?|mailto|tel|ftp|slack):/i;
const LINK_URL = String.raw`((?:[^\s()]|\([^\s()]*\))+)`;
const LINK_TITLE = String.raw`(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?`;
const IMAGE = new RegExp(String.raw`!\[([^\]\n]*)\]\(\s*${LINK_URL}${LINK_TITLE}\s*\)`, 'g');
const LINK = new RegExp(String.raw`\[((?:[^\[\]\n]|\[[^\[\]\n]*\])+)\]\(\s*${LINK_URL}${LINK_TITLE}\s*\)`, 'g');

/**
 * Prose (no fences, no tables) from neutralised markdown → mrkdwn. Code spans and links are stashed first so that
 * emphasis rules never reach inside them, lines get their block syntax (headings, lists, quotes), then emphasis.
 */
export function convertProseToMrkdwn(markdown: string): string {
  const stash: string[] = [];
  const hold = (mrkdwn: string) => `${STASH_OPEN}${stash.push(mrkdwn) - 1}${STASH_CLOSE}`;

  let text = holdCodeSpans(markdown.replace(PRIVATE, ''), hold);
  text = text
    // mrkdwn wants every `&` escaped (links included, as Slack stores them); neutraliseMentions left it alone
    // because the markdown block must not have it escaped. Its own `&lt;` and `&gt;` are kept.
    .replace(/&(?!(?:amp|lt|gt);)/g, '&amp;')
    // Backslash escapes: mrkdwn has none, so the character itself is the best it can show.
    .replace(/\\([!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~])/g, (_m, char: string) => hold(char))
    .replace(IMAGE, (_m, alt: string, url: string) => hold(renderLink(url, alt)))
    .replace(LINK, (_m, label: string, url: string) => hold(renderLink(url, convertEmphasis(label))))
    // Slack tokens left standing by neutraliseMentions (links, channels, dates) and bare URLs stay as written.
    .replace(/<[^<>\n]+>|\bhttps?:\/\/[^\s<>]+/g, (token) => hold(token));
  text = convertLines(text);
  text = convertEmphasis(text);
  return restore(text, stash);
}

function holdCodeSpans(text: string, hold: (mrkdwn: string) => string): string {
  let out = '';
  let at = 0;
  for (const [start, end] of findCodeSpans(text)) {
    const inner = text.slice(start, end).replace(/^(`+)([\s\S]*)\1$/, '$2');
    // CommonMark strips one space each side (so `` `x` `` can show backticks); mrkdwn's code span is a single backtick.
    const content = /^ .* $/s.test(inner) && inner.trim() !== '' ? inner.slice(1, -1) : inner;
    out += text.slice(at, start) + hold('`' + escapeMrkdwn(content) + '`');
    at = end;
  }
  return out + text.slice(at);
}

function renderLink(url: string, label: string): string {
  if (!ABSOLUTE_URL.test(url)) return label || url; // a relative link has nowhere to go in Slack
  return label && label !== url ? `<${url}|${label}>` : `<${url}>`;
}

function convertLines(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    // Markdown reads any number of blank lines as one paragraph break; Slack would show every one of them.
    if (line.trim() === '' && i > 0 && lines[i - 1]!.trim() === '') continue;
    // A setext underline (=== or ---) under a text line makes that line a heading.
    if (i > 0 && /^\s{0,3}(=+|-+)\s*$/.test(line) && isPlainTextLine(lines[i - 1]!)) {
      out[out.length - 1] = asHeading(out.at(-1)!);
      continue;
    }
    const quote = /^\s{0,3}(?:>[ \t]?)+/.exec(line);
    out.push(quote ? `> ${convertBlockLine(line.slice(quote[0].length))}` : convertBlockLine(line));
  }
  return out.join('\n');
}

function isPlainTextLine(line: string): boolean {
  return line.trim() !== '' && !/^\s*([-*+>#]|\d+[.)])\s/.test(line) && !line.includes(BOLD);
}

function convertBlockLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$/.exec(line);
  if (heading) return asHeading(heading[1] ?? '');
  if (/^\s{0,3}([-*_])(?:[ \t]*\1){2,}\s*$/.test(line)) return '──────────';
  const task = /^(\s*)[-*+]\s+\[([ xX])\]\s+(.*)$/.exec(line);
  if (task) return `${task[1]}${task[2] === ' ' ? '☐' : '☑'} ${task[3]}`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}${bullet[1] === '' ? '•' : '◦'} ${bullet[2]}`;
  const numbered = /^(\s*)(\d{1,9})[.)]\s+(.*)$/.exec(line);
  if (numbered) return `${numbered[1]}${numbered[2]}. ${numbered[3]}`;
  return line;
}

/** mrkdwn has no headings; a bold line is the closest. Bold inside it would close the bold early, so it goes. */
function asHeading(content: string): string {
  const plain = content.replace(/\*\*|__/g, '').trim();
  return plain === '' ? '' : `${BOLD}${plain}${BOLD}`;
}

/*
 * Emphasis spans are bounded (SPAN characters) so that a line full of unmatched "**" cannot make each opening marker
 * scan the rest of the line; longer emphasis is rare and merely keeps its markdown markers.
 */
const SPAN = 500;

function convertEmphasis(text: string): string {
  return text
    .replace(new RegExp(String.raw`\*\*\*(?=\S)([^\n]{0,${SPAN}}?\S)\*\*\*`, 'g'), `${BOLD}${ITALIC}$1${ITALIC}${BOLD}`)
    .replace(new RegExp(String.raw`\*\*(?=\S)([^\n]{0,${SPAN}}?\S)\*\*`, 'g'), `${BOLD}$1${BOLD}`)
    .replace(new RegExp(String.raw`(?<![\p{L}\p{N}_])__(?=\S)([^\n]{0,${SPAN}}?\S)__(?![\p{L}\p{N}_])`, 'gu'), `${BOLD}$1${BOLD}`)
    .replace(new RegExp(String.raw`(?<![*\p{L}\p{N}])\*(?=[^\s*])(?:[^*\n]{0,${SPAN}}?[^\s*])?\*(?![*\p{L}\p{N}])`, 'gu'), (m) => `${ITALIC}${m.slice(1, -1)}${ITALIC}`)
    .replace(new RegExp(String.raw`(?<![\p{L}\p{N}_])_(?=[^\s_])(?:[^_\n]{0,${SPAN}}?[^\s_])?_(?![\p{L}\p{N}_])`, 'gu'), (m) => `${ITALIC}${m.slice(1, -1)}${ITALIC}`)
    .replace(new RegExp(String.raw`~~(?=\S)([^\n]{0,${SPAN}}?\S)~~`, 'g'), `${STRIKE}$1${STRIKE}`)
    .replaceAll(BOLD, '*')
    .replaceAll(ITALIC, '_')
    .replaceAll(STRIKE, '~');
}

/** Stashed pieces may hold other stashed pieces (code inside a link label), so restore until none is left. */
function restore(text: string, stash: readonly string[]): string {
  const pattern = new RegExp(`${STASH_OPEN}(\\d+)${STASH_CLOSE}`, 'g');
  let out = text;
  while (out.includes(STASH_OPEN)) out = out.replace(pattern, (_m, i: string) => stash[Number(i)] ?? '');
  return out;
}
