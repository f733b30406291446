/**
 * A tool call that waits for a person's yes. The tool says what to show (ApprovalPrompt); a person decides
 * (ApprovalDecision); the run waits durably in between. Whether a call needs approval is the operator's
 * configuration; a tool server's own claim counts only where the operator said to trust it (trustAnnotations).
 */
export interface ApprovalPrompt {
  /** The tool as the model sees it, e.g. "tracker__create_issue". */
  tool: string;
  /** Where it acts (an MCP server's name), when it is not threadwise itself. */
  server?: string;
  /** The tool's own name on that server, e.g. "create_issue". */
  action: string;
  /** The arguments as the model wrote them (parsed). */
  arguments: unknown;
  /** What the server says of its tool, for display only: never whether approval is needed. */
  hints?: { readOnly?: boolean; destructive?: boolean };
}

export type ApprovalDecision =
  | {
      status: 'approved';
      by: string;
      at: Date;
      /**
       * Claims the call's one execution. False when it was claimed before: an earlier attempt started the call and
       * died, so whether it took effect is unknown and it must not run again.
       */
      claim(): Promise<boolean>;
    }
  | { status: 'denied'; by: string; at: Date }
  | { status: 'expired'; at: Date; afterMinutes: number };

/** A call the loop did not run because it waits for a decision. */
export interface AwaitingCall {
  callId: string;
  prompt: ApprovalPrompt;
}
