/**
 * A tool call that needs the speaker's own account on a tool server (an MCP server with `"auth": "oauth"`) before it
 * can run. The tool layer throws SignInRequired; the agent loop turns it into a waiting call (like an approval), and
 * the run parks until that person has signed in, then runs the call again with their token.
 */
import { ThreadwiseError } from './errors';

export interface SignInPrompt {
  /** The server's name in mcp.json, e.g. "jira". */
  server: string;
  /** Team and Slack user who must connect: the person the run answers. Nobody else may use the link. */
  teamId: string;
  userId: string;
  /**
   * Where the person signs in (the server's authorization endpoint, with PKCE challenge and single-use state).
   * Shown to that person only, in a private message; never stored in the run's turn or steps.
   */
  authorizationUrl: string;
  /** The sign-in request (its state row) the callback completes: binds the state to the parked run. */
  requestId: number;
}

export class SignInRequired extends ThreadwiseError<'sign_in_required'> {
  override readonly name = 'SignInRequired';
  constructor(
    readonly prompt: SignInPrompt,
    options?: { cause?: unknown },
  ) {
    super(
      'sign_in_required',
      `The MCP server "${prompt.server}" needs this person to connect their own account before it can be used for them.`,
      { ...options, context: { server: prompt.server, userId: prompt.userId } },
    );
  }
}

export function isSignInRequired(error: unknown): error is SignInRequired {
  return error instanceof SignInRequired;
}
