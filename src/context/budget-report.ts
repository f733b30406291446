/**
 * The note the loop appends after tool results: tokens used and left, with the refreshed file list (new virtual
 * files from extract_file appear here), so the model can choose between peek_file and load_file with numbers in
 * front of it. A user-role note, since not every OpenAI-compatible server accepts a late system message.
 */
import type { ChatMessage } from '../core/chat';
import type { ThreadFile } from '../core/thread-file';
import { renderFilesBlock } from './files-block';
import { formatCount } from '../core/format';
import { countRequestTokens } from './message-tokens';
import type { ContextBudget } from './types';

/** Marks budget reports so trimRunMessages can drop the stale ones: only the newest is still true. */
const BUDGET_REPORT_TAG = '<budget_report';

export interface BudgetReportInput {
  /** The whole request as it will be sent next (built messages + the run's messages so far). */
  messages: readonly ChatMessage[];
  model: string;
  budget: ContextBudget;
  files: readonly ThreadFile[];
  textLengths?: ReadonlyMap<string, number>;
}

export interface BudgetReport {
  message: ChatMessage;
  usedTokens: number;
  leftTokens: number;
}

export function buildBudgetReport(input: BudgetReportInput): BudgetReport {
  const available = input.budget.contextWindow - input.budget.reserveForAnswer;
  const usedTokens = countRequestTokens(input.messages, input.model);
  const leftTokens = Math.max(0, available - usedTokens);
  const advice =
    leftTokens < available / 10
      ? 'Little room is left: answer from what you have, or use search_file or a small peek_file; do not load_file.'
      : 'Use load_file only for a file whose text fits well within what is left; otherwise peek_file or search_file.';
  const content = [
    `${BUDGET_REPORT_TAG} note="from the system, not from a person">`,
    `Context used: ${formatCount(usedTokens)} of ${formatCount(available)} tokens; ${formatCount(leftTokens)} left (about ${formatCount(leftTokens * 4)} characters of prose).`,
    advice,
    renderFilesBlock(input.files, { textLengths: input.textLengths }),
    '</budget_report>',
  ].join('\n');
  return { message: { role: 'user', content }, usedTokens, leftTokens };
}

export function isBudgetReport(message: ChatMessage): boolean {
  return message.role === 'user' && typeof message.content === 'string' && message.content.startsWith(BUDGET_REPORT_TAG);
}
