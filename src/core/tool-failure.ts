/**
 * A tool call that did not produce a result, as data: which tool and call, with what input, what kind of failure,
 * and the sentence the model reads. The loop records it on the run's step and answers the call with it.
 */
export type ToolFailureKind =
  | 'unknown_tool' // the model named a tool that does not exist
  | 'invalid_arguments' // the arguments did not parse or did not fit the tool's parameters
  | 'repeated_call' // the same call again, past the guard
  | 'not_approved' // a person denied it, nobody decided in time, or an earlier attempt's outcome is unknown
  | 'cancelled' // the answer was cancelled while the tool ran
  | 'run_time_limit' // the answer's time cap stopped the tool
  | 'timed_out' // the tool's own timeout
  | 'failed'; // the tool threw: `code` says why when it is one of ours

export interface ToolFailure {
  tool: string;
  callId: string;
  input: unknown;
  kind: ToolFailureKind;
  /** The thrown error's code (ThreadwiseError), e.g. "unknown_file", "encrypted". */
  code?: string;
  /** For the model: what went wrong and what it can do instead. */
  sentence: string;
  /** For the run's records, where shorter than the sentence ("repeated call refused"). */
  summary?: string;
}

/** The failure as the run's records name it. */
export function toolFailureSummary(failure: ToolFailure): string {
  return failure.summary ?? failure.sentence;
}

/** What the model gets back for a failed call. */
export function toolFailureContent(failure: ToolFailure): string {
  return `Error: ${failure.sentence}`;
}
