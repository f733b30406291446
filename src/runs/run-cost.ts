/**
 * What a run costs: every step it takes (its own and its sub-agent's, model calls and tool calls) is recorded here
 * and told to whoever observes the run, and their totals — tokens and, at MODEL_PRICES, dollars — go on the run's
 * record whatever its outcome: a failed or cancelled run was paid for too.
 */
import { summarizeRunSteps, type RunStepRecord } from '../core/run-step';
import { costOfTokens, type ModelPrices } from '../core/model-prices';
import type { RunObservation } from '../core/run-observer';

export interface RunCostDependencies {
  /** MODEL_PRICES: what the run's tokens cost, recorded on the run (the daily limits sum it). */
  prices?: ModelPrices;
}

/** A run's totals as its record keeps them: which model answered, how, and what its tokens cost. */
interface RunCosts {
  model: string;
  strategy?: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface RunCostTally {
  /** Every step so far, in the order they ended (the run's steps are recorded from these). */
  readonly steps: readonly RunStepRecord[];
  record(step: RunStepRecord): void;
  totals(): RunCosts;
}

/** Tallies one attempt's steps for `model`; each step is also told to `observation` as it ends. */
export function tallyRunCost(model: { name: string; strategy?(): string }, prices: ModelPrices | undefined, observation?: Pick<RunObservation, 'step'>): RunCostTally {
  const steps: RunStepRecord[] = [];
  return {
    steps,
    record(step) {
      steps.push(step);
      observation?.step(step);
    },
    totals: () => ({ model: model.name, strategy: model.strategy?.(), ...costOfSteps(steps, prices) }),
  };
}

/** Tokens over every step, and their price: each model call at its own model's price (a sub-agent may use another). */
export function costOfSteps(steps: readonly RunStepRecord[], prices: ModelPrices | undefined): { inputTokens: number; outputTokens: number; costUsd: number } {
  const { inputTokens, outputTokens } = summarizeRunSteps(steps);
  let costUsd = 0;
  if (prices) {
    for (const step of steps) {
      if (step.kind === 'model' || step.kind === 'subagent_model') costUsd += costOfTokens(prices, step.name, step.inputTokens ?? 0, step.outputTokens ?? 0);
    }
  }
  return { inputTokens, outputTokens, costUsd };
}
