/**
 * The seam to the model. The agent loop only knows this interface; agent/openai-chat-model.ts is the one binding
 * to the `openai` SDK, and tests drive the loop through the real binding against a fake server, or a scripted model.
 */
import { ThreadwiseError } from './errors';

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model wrote it; parsed (leniently) by the loop. */
  arguments: string;
}

export type ContentPart =
  | { type: 'text'; text: string }
  /** `url` is a data: URL (Slack file URLs need the bot token, so the model could never fetch them). */
  | { type: 'image'; url: string; detail: 'low' | 'high' | 'auto' };

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Omitted or empty: the model must answer in text. */
  tools?: ToolSpec[];
  signal?: AbortSignal;
  /** Stop sequences (the ReAct protocol stops before the model invents an Observation). */
  stop?: string[];
  /** Called with each piece of answer text as it streams in. */
  onTextDelta?: (delta: string) => void;
  /**
   * Called before a failed call is tried again (rate limit, outage, dropped stream). `textAbandoned` says the failed
   * attempt had already streamed text through onTextDelta, which the caller must now treat as void.
   */
  onRetry?: (retry: ModelRetry) => void;
  /** Epoch ms: no retry wait may end after this (the run's time cap); the error is thrown instead. */
  retryDeadline?: number;
}

interface ModelRetry {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  error: ModelError;
  textAbandoned: boolean;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChatResponse {
  text: string | null;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';
}

export interface ChatModel {
  readonly name: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
}

/** Why a model call failed, by what the caller can do about it. */
export type ModelErrorKind =
  | 'rate_limited' // retried already; still limited
  | 'unavailable' // 5xx, timeout, a connection that broke off
  | 'unreachable' // no connection at all: refused, a host name that does not resolve, no route
  | 'context_length' // the request was too long: trim and retry
  | 'tools_unsupported' // the endpoint rejects `tools`: switch to ReAct
  | 'images_unsupported' // the endpoint rejects image input: describe instead
  | 'auth' // bad key
  | 'bad_request'; // anything else the endpoint refused

export interface ModelErrorDetails {
  cause?: unknown;
  status?: number;
  /** From Retry-After / retry-after-ms: how long the endpoint asked us to wait. */
  retryAfterMs?: number;
  /** From a context-length refusal, when the endpoint said the numbers: its limit and what we sent, in its tokens. */
  contextLimit?: { maxTokens: number; requestedTokens?: number };
}

export class ModelError extends ThreadwiseError<ModelErrorKind> {
  override readonly name = 'ModelError';
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly contextLimit?: ModelErrorDetails['contextLimit'];
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    details: ModelErrorDetails = {},
  ) {
    super(kind, message, { cause: details.cause });
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.contextLimit = details.contextLimit;
  }
}

/** Whether waiting and trying again can help. */
export function isRetryableModelError(error: unknown): error is ModelError {
  return error instanceof ModelError && (error.kind === 'rate_limited' || error.kind === 'unavailable' || error.kind === 'unreachable');
}
