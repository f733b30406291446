/**
 * What the loop reports about each step, for the run_steps table (through the `recordStep` callback: the agent core
 * never touches the database) and for live status in Slack (through `onEvent`).
 */
export interface RunStepRecord {
  /** `subagent_*`: steps of a sub-agent (ask_file) working for this run, counted in its totals. */
  kind: 'model' | 'tool' | 'subagent_model' | 'subagent_tool';
  /** The model's name, or the tool's. */
  name: string;
  iteration: number;
  /** Tool calls: the arguments as parsed (as written, when they were not JSON). */
  arguments?: unknown;
  /** Tool calls: characters of the result the model got back (error texts included). */
  resultChars?: number;
  inputTokens?: number;
  outputTokens?: number;
  durationMs: number;
  error?: string;
}

export type AgentEvent =
  | { type: 'thinking'; iteration: number }
  /** One round of tool calls began: each call that runs, with its status line ("reading report.pdf…"). */
  | { type: 'tools_started'; calls: Array<{ name: string; progress: string }> }
  /** A model call failed and is tried again after `delayMs` (the endpoint's Retry-After, or backoff). */
  | { type: 'model_retry'; attempt: number; delayMs: number; reason: string }
  | { type: 'text_delta'; delta: string }
  /** The text streamed so far was a preamble before tool calls; later text continues after a paragraph break. */
  | { type: 'text_break' }
  /** The text streamed by a failed model call is void (the call is being retried): the final answer replaces it. */
  | { type: 'text_reset' };

export interface RunTotals {
  inputTokens: number;
  outputTokens: number;
  modelCalls: number;
  toolCalls: number;
  failedCalls: number;
}

/** Totals over every step of a run, sub-agent steps included: what the run cost. */
export function summarizeRunSteps(steps: readonly RunStepRecord[]): RunTotals {
  const totals: RunTotals = { inputTokens: 0, outputTokens: 0, modelCalls: 0, toolCalls: 0, failedCalls: 0 };
  for (const step of steps) {
    totals.inputTokens += step.inputTokens ?? 0;
    totals.outputTokens += step.outputTokens ?? 0;
    if (step.kind === 'model' || step.kind === 'subagent_model') totals.modelCalls += 1;
    else totals.toolCalls += 1;
    if (step.error) totals.failedCalls += 1;
  }
  return totals;
}
