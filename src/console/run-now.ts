/**
 * What a run in progress is doing now, in words: "model call (gpt-4o-mini) in flight for 62 s", "running tool
 * peek_file for 3 s", "waiting for approval of tracker__create_issue since 16:21:05 UTC (4 min 10 s)", "waiting for
 * sign-in to jira since …". From the run's current step (kept while it works) and its approvals still pending.
 */
import type { CurrentStep } from '../core/run-step';
import { formatDurationMs, formatUtc } from './layout';

export interface RunNow {
  status: string;
  currentStep: CurrentStep | null;
  currentStepAt: Date | null;
  createdAt: Date;
  /** Approvals still waiting for a decision, oldest first. */
  pendingApprovals: ReadonlyArray<{ tool: string; createdAt: Date }>;
}

const IN_PROGRESS = new Set(['pending', 'running', 'waiting_approval', 'resumable']);

/** Seconds while under a minute ("62 s" reads as "1 min 2 s"). */
export function formatElapsed(ms: number): string {
  const clamped = Math.max(0, ms);
  return clamped < 60_000 ? `${Math.floor(clamped / 1000)} s` : formatDurationMs(clamped);
}

const list = (names: readonly string[]) => (names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** Undefined for a finished run. */
export function describeRunNow(run: RunNow, now: Date): string | undefined {
  if (!IN_PROGRESS.has(run.status)) return undefined;
  const since = (at: Date) => `since ${formatUtc(at)} (${formatElapsed(now.getTime() - at.getTime())})`;
  const step = run.currentStep;
  const stepFor = run.currentStepAt ? formatElapsed(now.getTime() - run.currentStepAt.getTime()) : undefined;
  if (step?.kind === 'sign_in') return `waiting for sign-in to ${list(step.names)}${run.currentStepAt ? ` ${since(run.currentStepAt)}` : ''}`;
  switch (run.status) {
    case 'pending':
      return `waiting for a worker to start it ${since(run.createdAt)}`;
    case 'waiting_approval': {
      const first = run.pendingApprovals[0];
      if (!first) return 'waiting for approval';
      return `waiting for approval of ${list([...new Set(run.pendingApprovals.map((a) => a.tool))])} ${since(first.createdAt)}`;
    }
    case 'resumable':
      return 'every call is decided: waiting for a worker to carry on';
  }
  if (step?.kind === 'model') return `model call (${list(step.names)}) in flight${stepFor ? ` for ${stepFor}` : ''}`;
  if (step?.kind === 'tool') {
    const what = `running ${step.names.length === 1 ? 'tool' : 'tools'} ${list(step.names)}${stepFor ? ` for ${stepFor}` : ''}`;
    return step.detail ? `${what} (${step.detail})` : what;
  }
  return 'working between calls (reading the thread, or about to call the model)';
}
