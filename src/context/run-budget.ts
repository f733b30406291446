/**
 * The token budget of one run, in one place: what the first request may fill, how much one tool result may take,
 * and how far to cut when the endpoint says a request was too long after all.
 */
import type { ContextBudget } from './types';

/** Tokens kept free for the answer itself. */
const RESERVE_FOR_ANSWER = 4_000;

export function runBudget(contextWindow: number): ContextBudget {
  return { contextWindow, reserveForAnswer: RESERVE_FOR_ANSWER };
}

/** One tool result may take an eighth of the window; the file tools page on their own well below that. */
export function toolResultLimit(contextWindow: number): number {
  return Math.max(2_000, Math.floor(contextWindow / 8));
}

/** The endpoint counted more than we did: on the one retry, aim well under what we thought was available. */
export function retryTokenLimit(budget: ContextBudget): number {
  return Math.floor((budget.contextWindow - budget.reserveForAnswer) * 0.7);
}
