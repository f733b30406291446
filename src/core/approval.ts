/**
 * A tool call that waits for a person's yes. The tool says what to show (ApprovalPrompt); a person decides
 * (ApprovalDecision); the run waits durably in between. Whether a call needs approval is the operator's
 * configuration; a tool server's own claim counts only where the operator said to trust it (trustAnnotations).
 */
import type { SignInPrompt } from './sign-in';

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

/** When the person was asked: the wait is `at` minus this (the run's record times it). */
interface Asked {
  requestedAt?: Date;
}

export type ApprovalDecision =
  | (Asked & {
      status: 'approved';
      by: string;
      at: Date;
      /**
       * Claims the call's one execution. False when it was claimed before: an earlier attempt started the call and
       * died, so whether it took effect is unknown and it must not run again.
       */
      claim(): Promise<boolean>;
    })
  | (Asked & { status: 'denied'; by: string; at: Date })
  | (Asked & { status: 'expired'; at: Date; afterMinutes: number });

/** A call the loop did not run because it waits for a decision — or for the speaker to sign in (`signIn`). */
export interface AwaitingCall {
  callId: string;
  prompt: ApprovalPrompt;
  /** Set when the call waits for a sign-in, not an approval (core/sign-in.ts). Never saved with the turn. */
  signIn?: SignInPrompt;
}

/**
 * Decides a tool call on the spot, where the person who asked is at hand (the terminal's own prompt): no parked
 * run, no buttons. A refusal carries the sentence the model is told instead of the tool's result.
 */
export type ApproveNow = (prompt: ApprovalPrompt, signal: AbortSignal) => Promise<{ approved: true; by: string } | { approved: false; sentence: string }>;
