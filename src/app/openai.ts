/**
 * The one binding to the `openai` SDK: Chat Completions with tools (streaming when the caller wants deltas), and
 * embeddings for hybrid search (createOpenAIEmbedder, at the end).
 * The per-call timeout is the SDK's. Retries are not (maxRetries defaults to 0): agent/retrying-chat-model.ts does
 * them, so they show in the thread's status and the run's steps, stop at the run's time cap and also cover a
 * stream that breaks off half-way. Errors come out as ModelError, carrying Retry-After and context-limit numbers.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ModelError, type ChatMessage, type ChatModel, type ChatRequest, type ChatResponse, type ToolCall } from '../core/chat';
import type { Embedder } from '../search/embedder';
import { causesOf, messageOf } from '../core/errors';

export interface OpenAIChatModelOptions {
  apiKey: string;
  baseUrl?: string;
  model: string;
  /** Per attempt. */
  timeoutMs: number;
  /** SDK-level retries; 0 unless something else wraps this model without its own retries. */
  maxRetries?: number;
  fetch?: typeof fetch;
  /** Each call's outcome: nothing for success, the ModelError otherwise (the model's state in /healthz). */
  onOutcome?: (error?: unknown) => void;
}

export function createOpenAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseUrl,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries ?? 0,
    fetch: options.fetch,
  });
  return {
    name: options.model,
    async complete(request) {
      try {
        const response = request.onTextDelta ? await streamCompletion(client, options.model, request) : await createCompletion(client, options.model, request);
        options.onOutcome?.();
        return response;
      } catch (error) {
        const mapped = toModelError(error, options.model, client.baseURL);
        options.onOutcome?.(mapped);
        throw mapped;
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
  // The SDK ends the iteration quietly when the signal aborts mid-stream (a cancel, the time limit, a shutdown):
  // the half that arrived must not pass for a whole answer.
  request.signal?.throwIfAborted();
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

/** Codes that mean no connection was made at all: nothing listens, the name does not resolve, no route. */
const NO_CONNECTION: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
};

/** Why nothing could connect to the endpoint ("connection refused, ECONNREFUSED"), when that is what happened. */
export function noConnectionReason(error: unknown): string | undefined {
  const code = causesOf(error)
    .map((e) => (e as { code?: unknown }).code)
    .find((c): c is string => typeof c === 'string' && c in NO_CONNECTION);
  return code ? `${NO_CONNECTION[code]}, ${code}` : undefined;
}

/** SDK errors → what the caller can do about them. `baseUrl` (OPENAI_BASE_URL) is named when it cannot be reached. */
function toModelError(error: unknown, model: string, baseUrl = 'https://api.openai.com/v1'): unknown {
  if (error instanceof ModelError) return error;
  if (error instanceof APIUserAbortError || (error instanceof Error && error.name === 'AbortError')) return error;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError('unavailable', `The model (${model}) did not answer in time.`, { cause: error });
  }
  if (error instanceof APIConnectionError) {
    const reason = noConnectionReason(error);
    if (reason) return new ModelError('unreachable', `The model endpoint at ${baseUrl} (OPENAI_BASE_URL) could not be reached (${reason}).`, { cause: error });
    return new ModelError('unavailable', `The model endpoint at ${baseUrl} (OPENAI_BASE_URL) could not be reached (${causesOf(error).map(messageOf).at(-1) ?? error.message}).`, { cause: error });
  }
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    const text = `${error.message} ${(error.code as string | undefined) ?? ''}`.toLowerCase();
    const details = { cause: error, status, retryAfterMs: retryAfterOf(error.headers) };
    if (status === 429) return new ModelError('rate_limited', `The model (${model}) is rate-limiting requests.`, details);
    if (status === 401 || status === 403) return new ModelError('auth', `The model endpoint refused the API key (${status}).`, details);
    if (status >= 500 || status === 408) return new ModelError('unavailable', `The model (${model}) failed with ${status}.`, details);
    if (/context.?length|maximum context|too many tokens|context window|prompt is too long|reduce the length/.test(text)) {
      return new ModelError('context_length', `The request was longer than ${model}'s context window.`, {
        ...details,
        contextLimit: contextLimitOf(error.message),
      });
    }
    if (/image/.test(text) && /(not support|unsupported|does not accept|invalid)/.test(text)) {
      return new ModelError('images_unsupported', `${model} does not accept images.`, details);
    }
    if (
      (/tool|function/.test(text) && /(not support|unsupported|does not support|unknown|unrecognized)/.test(text)) ||
      // vLLM without --enable-auto-tool-choice; llama.cpp without --jinja.
      /enable-auto-tool-choice|tool.?choice requires|tools param requires/.test(text)
    ) {
      return new ModelError('tools_unsupported', `${model} does not support tool calling.`, details);
    }
    return new ModelError('bad_request', `The model endpoint refused the request: ${error.message}`, details);
  }
  // A stream that breaks off half-way surfaces from fetch's body reader, not as an APIError.
  if (error instanceof Error && /terminated|socket|ECONNRESET|premature close|network|other side closed/i.test(causesOf(error).map(messageOf).join(' '))) {
    return new ModelError('unavailable', `The connection to the model (${model}) broke off (${error.message}).`, { cause: error });
  }
  return error;
}

/** Retry-After (seconds or an HTTP date) or the non-standard retry-after-ms, in ms; undefined when absent or odd. */
function retryAfterOf(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** "maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens" → both numbers. */
export function contextLimitOf(message: string): { maxTokens: number; requestedTokens?: number } | undefined {
  const max = /(?:maximum context length|context (?:length|window)(?: limit)?) (?:is|of) (\d[\d,]*)/i.exec(message);
  if (!max) return undefined;
  const requested = /(?:resulted in|requested|you (?:sent|have)|prompt (?:has|contains)) (\d[\d,]*) tokens/i.exec(message);
  const toNumber = (text: string) => Number(text.replace(/,/g, ''));
  return { maxTokens: toNumber(max[1]!), ...(requested ? { requestedTokens: toNumber(requested[1]!) } : {}) };
}

export interface OpenAIEmbedderOptions {
  /** OPENAI_EMBEDDING_MODEL, e.g. "text-embedding-3-small". */
  model: string;
  /** An existing client (same endpoint and key as chat); otherwise one is made from apiKey/baseURL. */
  client?: OpenAI;
  apiKey?: string;
  baseURL?: string;
  /** Texts per request. OpenAI accepts up to 2048 inputs; smaller batches keep one failure cheap. */
  batchSize?: number;
  /** Requests in flight at once while a document is embedded. */
  concurrency?: number;
}

/** Embeds through any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Azure, Ollama, vLLM, llama.cpp). */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const client =
    options.client ??
    new OpenAI({ apiKey: options.apiKey ?? 'unused', baseURL: options.baseURL, maxRetries: 2, timeout: 60_000 });
  const batchSize = options.batchSize ?? 64;
  const concurrency = Math.max(1, options.concurrency ?? 2);

  async function embedBatch(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    let response;
    try {
      response = await client.embeddings.create({ model: options.model, input: texts }, { signal });
    } catch (error) {
      const reason = messageOf(error);
      throw new Error(`Embedding ${texts.length} texts with ${options.model} failed: ${reason}`, { cause: error });
    }
    // Servers may answer out of order; `index` says which input each vector belongs to.
    const vectors: number[][] = new Array(texts.length);
    for (const item of response.data) vectors[item.index] = item.embedding;
    if (vectors.some((v) => !Array.isArray(v)) || vectors.length !== texts.length) {
      throw new Error(`Embedding with ${options.model}: asked for ${texts.length} vectors, got ${response.data.length}`);
    }
    return vectors;
  }

  return {
    model: options.model,
    async embed(texts, signal) {
      const batches: string[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) batches.push(texts.slice(i, i + batchSize));
      const results: number[][][] = new Array(batches.length);
      let next = 0;
      const worker = async () => {
        while (next < batches.length) {
          const mine = next++;
          results[mine] = await embedBatch(batches[mine]!, signal);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
      return results.flat();
    },
  };
}
