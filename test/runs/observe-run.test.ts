import { describe, expect, it } from 'vitest';
import { observeAttempt } from '../../src/runs/observe-run';
import type { RunEnd, RunObserver } from '../../src/core/run-observer';
import type { RunRow } from '../../src/store/run-store';
import type { ThreadRow } from '../../src/store/thread-store';

const run = { id: 7, threadId: 3, triggerUserId: 'U0ANA', attempts: 2, question: 'what changed?' } as RunRow;
const thread = { id: 3, channelId: 'C1', threadTs: '1700000000.000100' } as ThreadRow;

function recordingObserver() {
  const started: unknown[] = [];
  const ended: RunEnd[] = [];
  const observer: RunObserver = {
    runStarted: (observed) => {
      started.push(observed);
      return { step: () => {}, finished: (end) => ended.push(end) };
    },
  };
  return { observer, started, ended };
}

describe('an attempt as an observer sees it', () => {
  it('starts with the run and its thread, and ends with the outcome', async () => {
    const { observer, started, ended } = recordingObserver();
    const outcome = await observeAttempt(observer, { run, thread, model: 'big-model' }, async (observation) => {
      expect(observation).toBeDefined();
      return { status: 'done' as const, inputTokens: 12, answer: 'Yes.' };
    });
    expect(outcome).toEqual({ status: 'done', inputTokens: 12, answer: 'Yes.' });
    expect(started).toEqual([{ runId: 7, threadId: 3, channelId: 'C1', threadTs: '1700000000.000100', userId: 'U0ANA', model: 'big-model', attempt: 2, question: 'what changed?' }]);
    expect(ended).toEqual([{ status: 'done', inputTokens: 12, answer: 'Yes.' }]);
  });

  it('ends as interrupted when the attempt stops for another to resume, and lets the error through', async () => {
    const { observer, ended } = recordingObserver();
    const attempt = observeAttempt(observer, { run, thread, model: 'big-model' }, () => Promise.reject(new Error('lease lost')));
    await expect(attempt).rejects.toThrow('lease lost');
    expect(ended).toEqual([{ status: 'interrupted', error: 'lease lost' }]);
  });

  it('runs the attempt unobserved when nobody watches', async () => {
    await expect(observeAttempt(undefined, { run, thread, model: 'm' }, async (observation) => ({ status: observation ? 'watched' : 'unwatched' }))).resolves.toEqual({ status: 'unwatched' });
  });
});
