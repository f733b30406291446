/**
 * A run's current step as the console reads it: set as a model call or a round of tools starts, narrowed as each tool
 * ends (its start time kept), cleared as the last ends; writes go out in order and never fail the run. And approval
 * decisions are timed from the request.
 */
import { describe, expect, it } from 'vitest';
import { trackCurrentStep } from '../../src/runs/current-step';
import { approvalSteps } from '../../src/runs/parked-turn';
import type { CurrentStep } from '../../src/core/run-step';
import type { ParkedTurn } from '../../src/agent/run-agent-turn';

describe('trackCurrentStep', () => {
  it('records the model call, then the tools, narrowing and clearing as they end', async () => {
    const writes: Array<[number, string, CurrentStep | null, boolean | undefined]> = [];
    const tracker = trackCurrentStep(
      { recordCurrentStep: async (runId, owner, step, options) => void writes.push([runId, owner, step, options?.keepSince]) },
      { id: 7, leaseOwner: 'replica-a' },
      'gpt-4o-mini',
    );
    tracker.onEvent({ type: 'thinking', iteration: 1 });
    tracker.stepEnded({ kind: 'model', name: 'gpt-4o-mini', iteration: 1, durationMs: 900 });
    tracker.onEvent({ type: 'tools_started', calls: [{ name: 'peek_file', progress: 'reading a.pdf…' }, { name: 'load_skill', progress: 'loading jira…' }] });
    tracker.stepEnded({ kind: 'subagent_model', name: 'gpt-4o-mini', iteration: 1, durationMs: 5 }); // not the run's own
    tracker.stepEnded({ kind: 'tool', name: 'load_skill', iteration: 1, durationMs: 5 });
    tracker.stepEnded({ kind: 'tool', name: 'peek_file', iteration: 1, durationMs: 5 });
    tracker.onEvent({ type: 'text_delta', delta: 'x' });
    await tracker.settled();
    expect(writes).toEqual([
      [7, 'replica-a', { kind: 'model', names: ['gpt-4o-mini'] }, false],
      [7, 'replica-a', null, false],
      [7, 'replica-a', { kind: 'tool', names: ['peek_file', 'load_skill'], detail: 'reading a.pdf… · loading jira…' }, false],
      [7, 'replica-a', { kind: 'tool', names: ['peek_file'] }, true],
      [7, 'replica-a', null, false],
    ]);
  });

  it('never fails the run when a write fails, and does nothing without the seam', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const failing = trackCurrentStep(
      {
        recordCurrentStep: async () => {
          calls++;
          throw new Error('db down');
        },
      },
      { id: 1, leaseOwner: 'a' },
      'm',
      (error) => errors.push(error),
    );
    failing.onEvent({ type: 'thinking', iteration: 1 });
    failing.stepEnded({ kind: 'model', name: 'm', iteration: 1, durationMs: 1 });
    await failing.settled();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(2);
    const none = trackCurrentStep({}, { id: 1, leaseOwner: 'a' }, 'm');
    none.onEvent({ type: 'thinking', iteration: 1 });
    await expect(none.settled()).resolves.toBeUndefined();
  });
});

describe('approvalSteps', () => {
  it('times a decision from the request to the decision', () => {
    const turn = { iteration: 2, calls: [{ id: 'call-1', name: 'tracker__create_issue', arguments: '{}' }] } as unknown as ParkedTurn;
    const requestedAt = new Date('2026-11-24T16:21:00Z');
    const [step] = approvalSteps(turn, { decided: new Map([['call-1', { status: 'denied' as const, by: 'Ben', at: new Date('2026-11-24T16:23:05Z'), requestedAt }]]) });
    expect(step).toMatchObject({ kind: 'approval_decision', durationMs: 125_000, startedAt: requestedAt.getTime(), arguments: { decision: 'denied', by: 'Ben' } });
  });
});
