import { describe, expect, it } from 'vitest';
import { costOfSteps, tallyRunCost } from '../../src/runs/run-cost';
import type { RunStepRecord } from '../../src/core/run-step';

const PRICES = { 'big-model': { input: 10, output: 30 }, 'small-model': { input: 1, output: 2 } };
const step = (kind: RunStepRecord['kind'], name: string, inputTokens?: number, outputTokens?: number): RunStepRecord => ({ kind, name, iteration: 1, durationMs: 5, inputTokens, outputTokens });

describe('what a run costs', () => {
  it('prices each model call at its own model, a sub-agent’s included, and tool calls at nothing', () => {
    const steps = [
      step('model', 'big-model', 1_000_000, 100_000),
      step('tool', 'search_file'),
      step('subagent_model', 'small-model', 500_000, 0),
      step('subagent_tool', 'read_file'),
    ];
    const cost = costOfSteps(steps, PRICES);
    expect(cost.inputTokens).toBe(1_500_000);
    expect(cost.outputTokens).toBe(100_000);
    expect(cost.costUsd).toBeCloseTo(10 + 3 + 0.5, 10);
  });

  it('counts a model without a price, or no prices at all, as free but keeps its tokens', () => {
    expect(costOfSteps([step('model', 'unknown-model', 1_000, 10)], PRICES)).toEqual({ inputTokens: 1_000, outputTokens: 10, costUsd: 0 });
    expect(costOfSteps([step('model', 'big-model', 1_000, 10)], undefined)).toEqual({ inputTokens: 1_000, outputTokens: 10, costUsd: 0 });
  });

  it('tallies the steps in order, tells the observer each one, and totals them for the run’s model', () => {
    const observed: string[] = [];
    const tally = tallyRunCost({ name: 'big-model', strategy: () => 'react' }, PRICES, { step: (s) => observed.push(s.name) });
    expect(tally.totals()).toEqual({ model: 'big-model', strategy: 'react', inputTokens: 0, outputTokens: 0, costUsd: 0 });
    tally.record(step('model', 'big-model', 100_000, 0));
    tally.record(step('approval_request', 'create_issue'));
    expect(observed).toEqual(['big-model', 'create_issue']);
    expect(tally.steps.map((s) => s.kind)).toEqual(['model', 'approval_request']);
    expect(tally.totals()).toEqual({ model: 'big-model', strategy: 'react', inputTokens: 100_000, outputTokens: 0, costUsd: 1 });
  });
});
