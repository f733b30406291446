/**
 * Which preloaded texts go into the current turn, and how much of each. The registry preloads the first N KB of
 * every suitable file; with dozens of files that would be the megabytes-in-the-first-request problem again, so
 * preloads share one token allowance: files of the current message first, then newer files before older ones,
 * whole texts before slices.
 * The files block then says exactly what was preloaded ("yes, whole", "first 3,100 chars" or "no").
 */
import type { ThreadFile } from '../core/thread-file';
import { countTokens } from '../text/tokenizer';
import { takeTokens } from './token-prefix';

// Framing of one <file_data> element, and the smallest slice worth showing at all.
const FRAME_TOKENS = 24;
const MIN_SLICE_TOKENS = 200;

export interface PreloadSelection {
  /** Text to embed per file id, cut where the allowance ran out. */
  texts: Map<string, string>;
  tokens: number;
}

export function selectPreloads(
  files: readonly ThreadFile[],
  preloads: ReadonlyMap<string, string>,
  allowanceTokens: number,
  model: string,
  currentFileIds: ReadonlySet<string>,
): PreloadSelection {
  const texts = new Map<string, string>();
  let left = allowanceTokens;
  const candidates = files.filter((f) => !f.error && (preloads.get(f.id)?.length ?? 0) > 0);
  const ordered = [
    ...candidates.filter((f) => currentFileIds.has(f.id)),
    ...candidates.filter((f) => !currentFileIds.has(f.id)).reverse(),
  ];
  // Whole texts first, so one big CSV cannot crowd out a short README; then slices of the rest while room lasts.
  // Most preloads are the same "first 8 KB": once one is too long, texts at least as long are passed over
  // without counting (room only shrinks), which keeps a cold build with dozens of preloads cheap.
  let tooLong = Infinity;
  for (const file of ordered) {
    const text = preloads.get(file.id)!;
    if (text.length >= tooLong || left <= FRAME_TOKENS) continue;
    // Counted whole (not just up to the limit) so the next build of this thread finds it cached.
    const cost = countTokens(text, model) + FRAME_TOKENS;
    if (cost > left) {
      tooLong = text.length;
      continue;
    }
    texts.set(file.id, text);
    left -= cost;
  }
  // The rest share what is left equally, as many as get a useful slice: the head of each file (a CSV's header,
  // a README's intro) tells the model more than a longer head of one.
  const rest = ordered.filter((f) => !texts.has(f.id));
  const sliced = rest.slice(0, Math.floor(left / (FRAME_TOKENS + MIN_SLICE_TOKENS)));
  const share = Math.floor(left / Math.max(1, sliced.length));
  for (const file of sliced) {
    const head = takeTokens(preloads.get(file.id)!, share - FRAME_TOKENS, model);
    if (head.length === 0) continue;
    texts.set(file.id, head);
    left -= countTokens(head, model) + FRAME_TOKENS;
  }
  const used = allowanceTokens - left;
  // Embedded in the registry's file order, so the block reads in the same order as the list.
  const inFileOrder = new Map(files.filter((f) => texts.has(f.id)).map((f) => [f.id, texts.get(f.id)!]));
  return { texts: inFileOrder, tokens: used };
}
