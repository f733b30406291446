/** What the loop reports while it works, for live status in Slack (through `onEvent`). */
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
