/**
 * Cuts an oversized tool result to a token limit and says, in the result itself, how much was left out and how to
 * get it: "[cut: 48,000 more characters — use peek_file(F1, 12000, 24000) for the rest]". The model then pages on
 * purpose instead of guessing what it missed.
 */
import { countTokens, isWithinTokens } from '../text/tokenizer';
import { takeTokens } from './token-prefix';
import { formatCount } from '../core/format';

interface CutPosition {
  /** Characters kept, from the start. The rest starts at this offset. */
  shownChars: number;
  totalChars: number;
  remainingChars: number;
}

/** A fixed hint, or one made from where the cut fell (to name exact peek_file offsets). */
export type ContinuationHint = string | ((cut: CutPosition) => string);

const DEFAULT_MODEL = 'gpt-4o';

/**
 * `text` unchanged if it fits in `maxTokens`; else its longest head that fits together with the cut note.
 * `model` picks the tokenizer (default: the o200k family).
 */
export function fitToolResult(text: string, maxTokens: number, hint?: ContinuationHint, model = DEFAULT_MODEL): string {
  if (!(maxTokens > 0)) throw new RangeError(`fitToolResult: maxTokens must be positive, got ${maxTokens}`);
  // A token is at least one UTF-8 byte and a UTF-16 unit at most three bytes, so short texts need no counting;
  // long ones are counted only up to the limit.
  if (text.length * 3 <= maxTokens || isWithinTokens(text, maxTokens, model)) return text;

  // The note's length depends on where the cut falls, but only by a few digits: reserve for the longest.
  const worstNote = renderCutNote({ shownChars: text.length, totalChars: text.length, remainingChars: text.length }, hint);
  const room = Math.max(0, maxTokens - countTokens(worstNote, model) - 2);
  const head = takeTokens(text, room, model);
  const cut: CutPosition = {
    shownChars: head.length,
    totalChars: text.length,
    remainingChars: text.length - head.length,
  };
  return `${head}${head.endsWith('\n') || head.length === 0 ? '' : '\n'}${renderCutNote(cut, hint)}`;
}

/** "[cut: 48,000 more characters — use peek_file(F1, 12000, 24000) for the rest]" */
function renderCutNote(cut: CutPosition, hint?: ContinuationHint): string {
  const how = typeof hint === 'function' ? hint(cut) : hint;
  const more = `${formatCount(cut.remainingChars)} more characters`;
  return how ? `[cut: ${more} — ${how}]` : `[cut: ${more} not shown]`;
}

/** A ready-made hint for file text: the next slice of the same size through peek_file. */
export function peekFileHint(fileId: string, offsetOfText = 0): ContinuationHint {
  return (cut) => {
    const start = offsetOfText + cut.shownChars;
    const stop = Math.min(offsetOfText + cut.totalChars, start + Math.max(cut.shownChars, 4000));
    return `use peek_file(${fileId}, ${start}, ${stop}) for the rest`;
  };
}
