/**
 * The longest prefix of a text that fits in a number of tokens, found with one encode of a bounded slice and one
 * decode — not by counting the whole text, which for a 1 MB tool result would cost more than the request itself.
 */
import { decodeTokens, encodeText } from '../text/tokenizer';

// The same preload is cut to the same size on every rebuild of a thread: remember the last few hundred cuts of
// preload-sized texts (a 1 MB tool result is cut once and must not be held here).
const MEMO_LIMIT = 500;
const MEMO_MAX_CHARS = 64 * 1024;
const memo = new Map<string, string>();

/** Prefix of `text` of at most `maxTokens` tokens; cut on a line or word boundary when one is near the end. */
export function takeTokens(text: string, maxTokens: number, model: string): string {
  if (maxTokens <= 0) return '';
  if (text.length > MEMO_MAX_CHARS) return cutToTokens(text, maxTokens, model);
  const key = `${model}\u0000${maxTokens}\u0000${text}`;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const head = cutToTokens(text, maxTokens, model);
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, head);
  return head;
}

function cutToTokens(text: string, maxTokens: number, model: string): string {
  // Start from a slice that almost always holds enough tokens, widen it in the rare case it does not (very long
  // tokens such as runs of spaces).
  let sliceChars = Math.max(64, maxTokens * 6);
  for (;;) {
    const slice = text.slice(0, sliceChars);
    const tokens = encodeText(slice, model);
    if (tokens.length > maxTokens) return snapToBoundary(trimBrokenChar(decodeTokens(tokens.slice(0, maxTokens), model)));
    if (slice.length === text.length) return text;
    sliceChars *= 2;
  }
}

// A token boundary can fall inside a multi-byte character; the decoder then ends in U+FFFD.
function trimBrokenChar(prefix: string): string {
  return prefix.replace(/\uFFFD+$/, '');
}

// Prefer ending on a line, then a word, if that loses under a tenth of the prefix.
function snapToBoundary(prefix: string): string {
  const floor = Math.floor(prefix.length * 0.9);
  const line = prefix.lastIndexOf('\n');
  if (line >= floor) return prefix.slice(0, line + 1);
  const space = prefix.lastIndexOf(' ');
  if (space >= floor) return prefix.slice(0, space + 1);
  return prefix;
}
