/**
 * One recorded step of a run — a model call or a tool call, the run's own or its sub-agent's — as the loop reports it
 * (through a callback: the agent never touches the database) and run_steps stores it.
 */
export interface RunStepRecord {
  /** `subagent_*`: steps of a sub-agent (ask_file) working for this run, counted in its totals. */
  kind: 'model' | 'tool' | 'subagent_model' | 'subagent_tool' | 'approval_request' | 'approval_decision';
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
  /** Epoch ms when the call began (for the console's timeline and the trace's spans). */
  startedAt?: number;
  /** Tool calls: the first lines of the result (`previewOfResult`), for the console's timeline. */
  resultPreview?: string;
}

/**
 * What a run is doing right now, kept on the run while it works (runs.current_step) so the console can say "model call
 * in flight for 40 s" before the run's steps are recorded at the end of the attempt. `sign_in`: the run waits for the
 * person to connect their account on a tool server (`names`: the servers).
 */
export interface CurrentStep {
  kind: 'model' | 'tool' | 'sign_in';
  /** The model's name, the tools running (a round may run several at once), or the servers to sign in to. */
  names: string[];
  /** What the thread's status line says of it ("reading report.pdf…"), when it says more than the names. */
  detail?: string;
}

/** The first few lines of a tool result, at most 400 characters: enough to see what came back, not the content. */
export function previewOfResult(content: string): string {
  const lines = content.split('\n').slice(0, RESULT_PREVIEW_LINES).join('\n');
  return lines.length > RESULT_PREVIEW_CHARS ? `${lines.slice(0, RESULT_PREVIEW_CHARS - 1)}…` : lines;
}

const RESULT_PREVIEW_LINES = 6;
const RESULT_PREVIEW_CHARS = 400;

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
    if (step.kind === 'approval_request' || step.kind === 'approval_decision') continue;
    if (step.kind === 'model' || step.kind === 'subagent_model') totals.modelCalls += 1;
    else totals.toolCalls += 1;
    if (step.error) totals.failedCalls += 1;
  }
  return totals;
}
