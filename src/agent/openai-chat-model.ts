/**
 * The one binding to the `openai` SDK: Chat Completions with tools, streaming when the caller wants deltas.
 * Retries (with backoff, honouring Retry-After) and the per-call timeout are the SDK's, set explicitly.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ModelError, type ChatMessage, type ChatModel, type ChatRequest, type ChatResponse, type ToolCall } from './chat-model';

export interface OpenAIChatModelOptions {
  apiKey: string;
  baseUrl?: string;
  model: string;
  timeoutMs: number;
  maxRetries?: number;
  fetch?: typeof fetch;
}

export function createOpenAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseUrl,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries ?? 3,
    fetch: options.fetch,
  });
  return {
    name: options.model,
    async complete(request) {
      try {
        return request.onTextDelta ? await streamCompletion(client, options.model, request) : await createCompletion(client, options.model, request);
      } catch (error) {
        throw toModelError(error, options.model);
      }
    },
  };
}

async function createCompletion(client: OpenAI, model: string, request: ChatRequest): Promise<ChatResponse> {
  const completion = await client.chat.completions.create(
    { model, messages: request.messages.map(toOpenAIMessage), ...toolsOf(request), ...(request.stop ? { stop: request.stop } : {}) },
    { signal: request.signal },
  );
  const choice = completion.choices[0];
  const toolCalls: ToolCall[] = (choice?.message.tool_calls ?? [])
    .filter((call) => call.type === 'function')
    .map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
  return {
    text: choice?.message.content ?? null,
    toolCalls,
    usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
    finishReason: finishReasonOf(choice?.finish_reason),
  };
}

async function streamCompletion(client: OpenAI, model: string, request: ChatRequest): Promise<ChatResponse> {
  const stream = await client.chat.completions.create(
    {
      model,
      messages: request.messages.map(toOpenAIMessage),
      ...toolsOf(request),
      ...(request.stop ? { stop: request.stop } : {}),
      stream: true,
      stream_options: { include_usage: true },
    },
    { signal: request.signal },
  );
  let text = '';
  let finish: string | null | undefined;
  let usage = { inputTokens: 0, outputTokens: 0 };
  const calls = new Map<number, ToolCall>();
  for await (const chunk of stream) {
    if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta;
    if (delta.content) {
      text += delta.content;
      request.onTextDelta?.(delta.content);
    }
    for (const part of delta.tool_calls ?? []) {
      const call = calls.get(part.index) ?? { id: '', name: '', arguments: '' };
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
      calls.set(part.index, call);
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return {
    text: text || null,
    toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
    usage,
    finishReason: finishReasonOf(finish),
  };
}

function toolsOf(request: ChatRequest): { tools?: ChatCompletionTool[] } {
  if (!request.tools?.length) return {};
  return {
    tools: request.tools.map((tool) => ({
      type: 'function' as const,
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    })),
  };
}

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return {
        role: 'user',
        content:
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) =>
                part.type === 'text'
                  ? { type: 'text' as const, text: part.text }
                  : { type: 'image_url' as const, image_url: { url: part.url, detail: part.detail } },
              ),
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function finishReasonOf(reason: string | null | undefined): ChatResponse['finishReason'] {
  return reason === 'stop' || reason === 'tool_calls' || reason === 'length' || reason === 'content_filter' ? reason : 'other';
}

/** SDK errors → what the caller can do about them. */
export function toModelError(error: unknown, model: string): unknown {
  if (error instanceof ModelError) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError('unavailable', `The model (${model}) did not answer in time.`, { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError('unavailable', `The model endpoint could not be reached (${error.message}).`, { cause: error });
  }
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    const text = `${error.message} ${(error.code as string | undefined) ?? ''}`.toLowerCase();
    const options = { cause: error, status };
    if (status === 429) return new ModelError('rate_limited', `The model (${model}) is rate-limiting requests.`, options);
    if (status === 401 || status === 403) return new ModelError('auth', `The model endpoint refused the API key (${status}).`, options);
    if (status >= 500) return new ModelError('unavailable', `The model (${model}) failed with ${status}.`, options);
    if (/context.?length|maximum context|too many tokens|context window|prompt is too long/.test(text)) {
      return new ModelError('context_length', `The request was longer than ${model}'s context window.`, options);
    }
    if (/image/.test(text) && /(not support|unsupported|does not accept|invalid)/.test(text)) {
      return new ModelError('images_unsupported', `${model} does not accept images.`, options);
    }
    if (/tool|function/.test(text) && /(not support|unsupported|does not support|unknown|unrecognized)/.test(text)) {
      return new ModelError('tools_unsupported', `${model} does not support tool calling.`, options);
    }
    return new ModelError('bad_request', `The model endpoint refused the request: ${error.message}`, options);
  }
  return error;
}
