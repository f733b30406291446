/**
 * What the person sees of a run in a terminal (or nowhere, for scripts and evals): the run's answer channel
 * (local-edge.ts) tells its display about status, streamed text and the end, and keeps the thread itself.
 */
export interface AnswerDisplay {
  /** What the run is doing now ("searching report.pdf…"). */
  status(text: string): void;
  clearStatus(): void;
  /** Answer text as the model writes it. */
  append(delta: string): void;
  /** The text so far was a preamble before tool calls; more follows after a paragraph break. */
  breakParagraph(): void;
  /** The text since the last break is void: its model call is being retried. */
  discardSinceBreak(): void;
  /** The answer as it now stands in the thread, with a note beside it when a limit was hit. */
  finish(answer: string, note?: string): void;
  /** The run failed or was cancelled: this sentence is what the thread got instead of an answer. */
  fail(sentence: string): void;
  /** make_chart or attach_file wrote a file (a chart PNG, a CSV): where it is. */
  wroteFile?(path: string): void;
}

/** Shows nothing: `--json`, and the evals, read the run's result instead. */
export const silentDisplay: AnswerDisplay = {
  status: () => {},
  clearStatus: () => {},
  append: () => {},
  breakParagraph: () => {},
  discardSinceBreak: () => {},
  finish: () => {},
  fail: () => {},
};
