/**
 * After the endpoint refused a request as too long: a shorter request for the one retry. The system prompt and the
 * current question (with its files block) are kept whole; the run's own tool steps are trimmed (old results
 * stubbed, the newest cut — context/trim-run-messages.ts), then the oldest thread history is left out, until the
 * request fits a target below what the endpoint said it accepts.
 */
import type { ChatMessage, ModelError } from '../core/chat';
import { countMessageTokens, REPLY_PRIMING_TOKENS } from './message-tokens';
import { trimRunMessages } from './trim-run-messages';

export interface TrimRequestOptions {
  /** Where the current question sits: before it (after the system prompt) is history, after it the run's steps. */
  questionIndex: number;
  /** Our own ceiling for the whole request, in our tokens. */
  maxTokens: number;
  model: string;
  /** The refusal: when it says the endpoint's limit and our request's size, the target drops below that limit. */
  error?: ModelError;
}

export interface TrimmedRequest {
  messages: ChatMessage[];
  /** The target the trim aimed at, and what came out (our tokens). */
  targetTokens: number;
  tokens: number;
  droppedHistory: number;
}

/** Room kept free below the endpoint's limit, as a share of it: our count and the endpoint's never agree exactly. */
const SAFETY_SHARE = 0.1;

export const HISTORY_LEFT_OUT_NOTE = '[Earlier messages of this thread were left out to fit the model’s context window.]';

export function trimRequestForRetry(messages: readonly ChatMessage[], options: TrimRequestOptions): TrimmedRequest {
  const count = (list: readonly ChatMessage[]) => list.reduce((sum, m) => sum + countMessageTokens(m, options.model), REPLY_PRIMING_TOKENS);
  const ours = count(messages);
  const targetTokens = Math.max(1, Math.min(options.maxTokens, targetFromRefusal(ours, options.error)));

  const question = messages[options.questionIndex];
  if (!question) throw new RangeError(`trimRequestForRetry: no message at questionIndex ${options.questionIndex} (of ${messages.length})`);
  const system = messages[0]?.role === 'system' && options.questionIndex > 0 ? [messages[0]] : [];
  const history = messages.slice(system.length, options.questionIndex);
  let run = messages.slice(options.questionIndex + 1);
  const fixed = count([...system, question]);
  const historyTokens = count(history) - REPLY_PRIMING_TOKENS;

  // The run's results can be stubbed and fetched again; history cannot. Still, the run gets at least half the room.
  const runBudget = Math.max(targetTokens - fixed - historyTokens, Math.floor((targetTokens - fixed) / 2));
  if (run.length > 0 && count(run) - REPLY_PRIMING_TOKENS > runBudget) {
    run = trimRunMessages(run, { maxTokens: Math.max(1, runBudget), model: options.model }).messages;
  }

  let room = targetTokens - fixed - (count(run) - REPLY_PRIMING_TOKENS);
  const kept: ChatMessage[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const tokens = countMessageTokens(history[i]!, options.model);
    if (tokens > room) break;
    room -= tokens;
    kept.unshift(history[i]!);
  }
  const droppedHistory = history.length - kept.length;
  const note: ChatMessage[] = droppedHistory > 0 ? [{ role: 'user', content: HISTORY_LEFT_OUT_NOTE }] : [];
  const trimmed = [...system, ...note, ...kept, question, ...run];
  return { messages: trimmed, targetTokens, tokens: count(trimmed), droppedHistory };
}

/** Our count minus what the endpoint said we were over by, and a safety margin; no limit if it gave no numbers. */
function targetFromRefusal(ours: number, error: ModelError | undefined): number {
  const limit = error?.contextLimit;
  if (!limit) return Number.POSITIVE_INFINITY;
  const margin = Math.ceil(limit.maxTokens * SAFETY_SHARE);
  if (limit.requestedTokens === undefined) return limit.maxTokens - margin;
  return ours - (limit.requestedTokens - limit.maxTokens) - margin;
}
