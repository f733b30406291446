/**
 * The seam through which a run reports what it does, for whoever watches from outside (traces today). The run and
 * the agent know only this interface; the composition root plugs in an implementation (app/tracing/), so nothing
 * below the edges imports a telemetry SDK. Implementations must not throw and must not block: they are called on
 * the run's own path.
 */
import type { RunStepRecord } from './run-step';

export interface ObservedRun {
  runId: number;
  threadId: number;
  channelId: string;
  threadTs: string;
  userId?: string;
  model: string;
  attempt: number;
  /** The first line of the question: content, exported only where the operator allowed it. */
  question?: string;
}

export interface RunEnd {
  /** done | failed | cancelled | waiting_approval; `interrupted` when the attempt stopped for another to resume. */
  status: string;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  iterations?: number;
  error?: string;
  /** The answer as posted: content, exported only where the operator allowed it. */
  answer?: string;
}

export interface RunObservation {
  /** A model or tool call (or a sub-agent's) just ended; `startedAt` and `durationMs` place it in time. */
  step(step: RunStepRecord): void;
  finished(end: RunEnd): void;
}

export interface RunObserver {
  runStarted(run: ObservedRun): RunObservation;
}
