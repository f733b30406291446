/**
 * Which preloaded texts go into the current turn, and how much of each. The registry preloads the first N KB of
 * every suitable file; with dozens of files that would be the megabytes-in-the-first-request problem again, so
 * preloads share one token allowance: files of the current message first, then newer files before older ones,
 * whole texts before slices.
 * The files block then says exactly what was preloaded ("yes, whole", "first 3,100 chars" or "no").
 */
import type { ThreadFile } from '../files/types';
import { countTokens } from './tokenizer';
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
  for (const file of ordered) {
    const cost = countTokens(preloads.get(file.id)!, model) + FRAME_TOKENS;
    if (cost > left) continue;
    texts.set(file.id, preloads.get(file.id)!);
    left -= cost;
  }
  for (const file of ordered) {
    if (left < FRAME_TOKENS + MIN_SLICE_TOKENS) break;
    if (texts.has(file.id)) continue;
    const head = takeTokens(preloads.get(file.id)!, left - FRAME_TOKENS, model);
    if (head.length === 0) continue;
    texts.set(file.id, head);
    left -= countTokens(head, model) + FRAME_TOKENS;
  }
  const used = allowanceTokens - left;
  // Embedded in the registry's file order, so the block reads in the same order as the list.
  const inFileOrder = new Map(files.filter((f) => texts.has(f.id)).map((f) => [f.id, texts.get(f.id)!]));
  return { texts: inFileOrder, tokens: used };
}
