/** What the loop reports about each step, for the run_steps table and for live status in Slack. */
export interface RunStepRecord {
  kind: 'model' | 'tool' | 'subagent_model' | 'subagent_tool';
  name: string;
  iteration: number;
  arguments?: unknown;
  resultChars?: number;
  inputTokens?: number;
  outputTokens?: number;
  durationMs: number;
  error?: string;
}

export type AgentEvent =
  | { type: 'thinking'; iteration: number }
  | { type: 'tool_started'; name: string; progress: string }
  | { type: 'text_delta'; delta: string }
  /** The streamed text so far was not the answer (the model went on to call tools): discard it. */
  | { type: 'text_discarded' };
