/**
 * Why an MCP tool call produced no result, as a code to branch on and a sentence for the model: which server, what
 * failed, and what it can do instead. A tool that ran and reported an error (`isError`) is not a failure here —
 * that is a result whose text the model reads (convert-result.ts). The loop records the code with the call.
 */
import { ThreadwiseError } from '../core/errors';

export type McpFailureCode =
  | 'mcp_unknown_tool' // no such tool offered (never listed, disabled, or gone from the server)
  | 'mcp_invalid_arguments' // the arguments are not a JSON object
  | 'mcp_server_unavailable' // not connected, connection refused or lost, credentials refused
  | 'mcp_timeout' // no answer within the server's timeoutSeconds; the call was cancelled
  | 'mcp_server_error' // the server answered with a protocol error (bad arguments, internal error)
  | 'mcp_cancelled'; // the caller aborted (the answer was cancelled or ran out of time)

export class McpToolFailure extends ThreadwiseError<McpFailureCode> {
  override readonly name = 'McpToolFailure';
  constructor(
    code: McpFailureCode,
    /** For the model: the sentence it reads as the call's result. */
    message: string,
    readonly server: string | undefined,
    readonly tool: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, { ...options, context: { server, tool } });
  }
}

export function isMcpToolFailure(error: unknown): error is McpToolFailure {
  return error instanceof McpToolFailure;
}
