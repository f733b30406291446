/**
 * Which earlier turns fit: the newest are kept whole, the oldest whole turns are dropped first, and a note (with a
 * cached summary, when one is given) stands where they were. The cut point moves in steps of ten turns, so while a
 * long thread grows the kept history keeps the same first message for several requests and the provider's prefix
 * cache still hits.
 */
import type { ChatMessage } from '../core/chat';
import type { HistorySummary } from './types';
import { countMessageTokens } from './message-tokens';
import { formatCount } from '../core/format';
import { escapeXmlText } from './escape';

const CUT_STEP = 10;
// Stepping the cut never costs the thread its recent past: below this many kept turns, cut exactly.
const MIN_KEPT_WHEN_STEPPING = 20;

export interface HistoryWindow {
  /** Index of the first kept turn; turns before it are dropped. */
  cut: number;
  /** The note standing for dropped turns, when any were dropped. */
  note?: ChatMessage;
  noteTokens: number;
  usedSummary: boolean;
}

/**
 * @param turnTokens tokens of each earlier turn's message, oldest first; called lazily, newest first, and only
 *   as far back as the budget reaches (a 10,000-message thread costs no more than the part that fits).
 */
export function selectHistoryWindow(
  historyLength: number,
  turnTokens: (index: number) => number,
  roomTokens: number,
  model: string,
  summary?: HistorySummary,
): HistoryWindow {
  let total = 0;
  let index = historyLength;
  while (index > 0 && total + turnTokens(index - 1) <= roomTokens) total += turnTokens(--index);
  if (index === 0) return { cut: 0, noteTokens: 0, usedSummary: false };

  // Something is dropped: make room for the note, then step the cut for cache stability.
  const summaryFits = summary && summary.coversTurns > 0 && countNote(historyLength, summary, model) <= roomTokens / 2;
  const usable = summaryFits ? summary : undefined;
  const noteTokens = countNote(historyLength, usable, model);
  while (index < historyLength && total + noteTokens > roomTokens) total -= turnTokens(index++);
  let cut = index;
  const stepped = Math.ceil(cut / CUT_STEP) * CUT_STEP;
  if (historyLength - stepped >= MIN_KEPT_WHEN_STEPPING) cut = stepped;
  // A summary that covers more than must be dropped replaces those turns too: no need to say things twice.
  if (usable) cut = Math.max(cut, Math.min(usable.coversTurns, historyLength));
  const note = renderDropNote(cut, usable);
  return { cut, note, noteTokens: countMessageTokens(note, model), usedSummary: usable !== undefined };
}

/** The note standing where dropped turns were; a user-role message, since a mid-thread system message is not
 * accepted by every OpenAI-compatible server. */
function renderDropNote(dropped: number, summary?: HistorySummary): ChatMessage {
  const left = `[Note from the system: ${formatCount(dropped)} earlier message${dropped === 1 ? ' is' : 's are'} left out here to fit the context window.`;
  if (!summary) return { role: 'user', content: `${left}]` };
  const covered = Math.min(summary.coversTurns, dropped);
  return {
    role: 'user',
    content: `${left} A summary of the first ${formatCount(covered)} of them, made earlier:]\n<summary>\n${escapeXmlText(summary.text.trim())}\n</summary>`,
  };
}

// The longest the note can be for this thread (the count has at most as many digits as the thread length).
function countNote(historyLength: number, summary: HistorySummary | undefined, model: string): number {
  return countMessageTokens(renderDropNote(historyLength, summary), model);
}
