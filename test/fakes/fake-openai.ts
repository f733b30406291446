/**
 * A fake OpenAI-compatible server over real HTTP for the real `openai` SDK (`baseURL: fake.url`): scripted chat
 * completions (plain or SSE-streamed), tool calls, errors with retry-after, delays, deterministic embeddings.
 *
 * Requests are validated strictly (see openai-validate.ts for the rules) and a broken one gets a 400 worded like
 * OpenAI's, plus a console warning, because the app might swallow the error and the test would only see "the
 * model failed". A request answered with a validation 400 or a `rejectTools`/`rejectImages` 400 does not
 * consume a scripted reply: the app's corrected retry gets it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { DEFAULT_EMBEDDING_DIMS, fakeEmbedding, toBase64Float32 } from './fake-embeddings';
import { listen, readBody, sendJson, Waiters } from './http';
import { completionChunks, completionJson, completionTokens, type CompletionScript, type ToolCallScript } from './openai-completion';
import { estimatePromptTokens, hasImages, validateChatRequest } from './openai-validate';

export { cosine,  } from './fake-embeddings';
;

/** What the SDK sends to /v1/chat/completions. */
export type ChatRequestBody = ChatCompletionCreateParams;

export type ScriptedReply =
  | {
      text: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
      /** Default 'stop'; 'length' simulates a truncated answer. */
      finishReason?: 'stop' | 'length' | 'content_filter';
      /** Streamed as `reasoning_content` deltas / field before the answer (vLLM-style servers). */
      reasoning?: string;
      /** Streaming only: drop the connection after this many SSE events (no finish chunk, no [DONE]). */
      disconnectAfterChunks?: number;
      /** Streaming only: after this many SSE events, send nothing more and keep the connection open (a hung model). */
      stallAfterChunks?: number;
    }
  | {
      toolCalls: ToolCallScript[];
      text?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
      disconnectAfterChunks?: number;
    }
  | { status: number; retryAfter?: number; error?: { message: string; type?: string; code?: string } }
  | { delayMs: number; then: ScriptedReply };

type ReplySource = ScriptedReply | ((request: ChatRequestBody) => ScriptedReply);

interface ServedOutcome {
  /** 'reply' (a scripted completion), 'error' (a scripted error status), 'invalid' (failed validation),
   * 'rejected' (rejectTools/rejectImages/context window), 'aborted' (client went away, e.g. its timeout). */
  kind: 'reply' | 'error' | 'invalid' | 'rejected' | 'aborted';
  status: number;
  message?: string;
}

export interface FakeOpenAI {
  /** 'http://127.0.0.1:PORT/v1' */
  url: string;
  apiKey: string | undefined;
  /** Replies served in order to chat completion calls; a function computes the reply from the request body. */
  enqueue(...replies: ReplySource[]): void;
  /** Served when the queue is empty (default: { text: 'ok' }). */
  setDefault(reply: ReplySource): void;
  /** Parsed request bodies of chat completion calls, in order (invalid and rejected ones too). */
  requests: ChatRequestBody[];
  /** What each entry of `requests` was answered with, same index. */
  outcomes: ServedOutcome[];
  embeddingRequests: Array<{ model: string; input: string[] }>;
  /** 400 "tools is not supported…" whenever a request has `tools` (a server without function calling). */
  rejectTools: boolean;
  /** 400 "image input is not supported…" whenever a request has image_url parts (a text-only model). */
  rejectImages: boolean;
  /** When set, a request whose estimated prompt tokens exceed it gets 400 context_length_exceeded. */
  contextWindow: number | undefined;
  /** Model ids listed by GET /v1/models. */
  models: string[];
  /**
   * GET /v1/models/{id}: 'any' (default) answers 200 for any id; 'listed' answers 404 model_not_found for an id not
   * in `models`, as OpenAI does; 'absent' has no such route (a 404 for the route itself, as llama.cpp and vLLM).
   */
  modelRoute: 'any' | 'listed' | 'absent';
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Clears requests, outcomes, embeddings, the queue; default back to { text: 'ok' }; flags off. */
  reset(): void;
  close(): Promise<void>;
}

interface ErrorBody {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

const DEFAULT_ERRORS: Record<number, Omit<ErrorBody, 'param'>> = {
  400: { message: 'Bad request.', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  404: { message: 'The model does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' },
  429: {
    message: 'Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.',
    type: 'requests',
    code: 'rate_limit_exceeded',
  },
  500: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null },
  502: { message: 'Bad gateway.', type: 'server_error', code: null },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', code: null },
};

function errorBody(status: number, error?: { message: string; type?: string; code?: string }): { error: ErrorBody } {
  const base = DEFAULT_ERRORS[status] ?? { message: `Error ${status}.`, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return { error: { message: error?.message ?? base.message, type: error?.type ?? base.type, param: null, code: error?.code ?? base.code } };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function startFakeOpenAI(options: { apiKey?: string } = {}): Promise<FakeOpenAI> {
  const queue: ReplySource[] = [];
  let fallback: ReplySource = { text: 'ok' };
  const waiters = new Waiters();
  const timers = new Set<NodeJS.Timeout>();

  const sleep = (ms: number, res: ServerResponse) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.off('close', onClose);
        resolve(true);
      }, ms);
      const onClose = () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      };
      timers.add(timer);
      res.once('close', onClose);
    });

  function authorized(req: IncomingMessage): boolean {
    if (options.apiKey === undefined) return true;
    return req.headers.authorization === `Bearer ${options.apiKey}`;
  }

  function sendError(res: ServerResponse, status: number, body: { error: ErrorBody }, headers: Record<string, string> = {}) {
    sendJson(res, status, body, headers);
  }

  async function serveReply(res: ServerResponse, request: ChatRequestBody, source: ReplySource, outcome: ServedOutcome): Promise<void> {
    let reply = typeof source === 'function' ? source(request) : source;
    while ('delayMs' in reply) {
      const stillThere = await sleep(reply.delayMs, res);
      if (!stillThere) {
        outcome.kind = 'aborted';
        outcome.status = 0;
        return;
      }
      reply = reply.then;
    }
    if ('status' in reply) {
      outcome.kind = 'error';
      outcome.status = reply.status;
      const headers: Record<string, string> = {};
      if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
      const body = errorBody(reply.status, reply.error);
      outcome.message = body.error.message;
      sendError(res, reply.status, body, headers);
      return;
    }
    const script: CompletionScript = {
      text: reply.text,
      toolCalls: 'toolCalls' in reply ? reply.toolCalls : undefined,
      finishReason: 'finishReason' in reply ? reply.finishReason : undefined,
      reasoning: 'reasoning' in reply ? reply.reasoning : undefined,
    };
    const usage = reply.usage ?? {
      prompt_tokens: estimatePromptTokens(request as unknown as Record<string, unknown>),
      completion_tokens: completionTokens(script),
    };
    outcome.kind = 'reply';
    outcome.status = 200;
    if (request.stream !== true) {
      sendJson(res, 200, completionJson(request.model, script, usage), { 'openai-processing-ms': '1' });
      return;
    }
    const includeUsage = isObject(request.stream_options) && request.stream_options.include_usage === true;
    const events = completionChunks(request.model, script, usage, includeUsage);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const cut = reply.disconnectAfterChunks;
    const stall = 'stallAfterChunks' in reply ? reply.stallAfterChunks : undefined;
    for (const [i, data] of events.entries()) {
      if (cut !== undefined && i >= cut) {
        outcome.message = `disconnected after ${cut} chunks`;
        res.destroy();
        return;
      }
      if (stall !== undefined && i >= stall) {
        outcome.message = `stalled after ${stall} chunks`;
        await new Promise<void>((resolve) => res.once('close', () => resolve()));
        return;
      }
      if (res.destroyed) return;
      res.write(`data: ${data}\n\n`);
      // Yield between events so the client sees separate network reads, not one buffered body.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    res.end();
  }

  async function handleChat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = (await readBody(req)).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendError(res, 400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', param: null, code: null } });
    }
    const request = body as ChatRequestBody;
    const outcome: ServedOutcome = { kind: 'reply', status: 200 };
    fake.requests.push(request);
    fake.outcomes.push(outcome);
    waiters.notify();
    try {
      const reject = (kind: 'invalid' | 'rejected', message: string, param: string | null, code: string | null) => {
        outcome.kind = kind;
        outcome.status = 400;
        outcome.message = message;
        if (kind === 'invalid') console.warn(`[fake-openai] 400 for request #${fake.requests.length}: ${message} (param: ${param})`);
        sendError(res, 400, { error: { message, type: 'invalid_request_error', param, code } });
      };
      const invalid = validateChatRequest(body);
      if (invalid) return reject('invalid', invalid.message, invalid.param, invalid.code);
      if (fake.rejectTools && Array.isArray(request.tools)) {
        return reject('rejected', `tools is not supported: model "${request.model}" does not support tools`, 'tools', null);
      }
      if (fake.rejectImages && hasImages(body as Record<string, unknown>)) {
        return reject('rejected', `image input is not supported: model "${request.model}" does not support image input`, 'messages', null);
      }
      if (fake.contextWindow !== undefined) {
        const tokens = estimatePromptTokens(body as Record<string, unknown>);
        if (tokens > fake.contextWindow) {
          return reject(
            'rejected',
            `This model's maximum context length is ${fake.contextWindow} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            'messages',
            'context_length_exceeded',
          );
        }
      }
      await serveReply(res, request, queue.shift() ?? fallback, outcome);
    } finally {
      waiters.notify();
    }
  }

  async function handleEmbeddings(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req)).toString('utf8'));
    } catch {
      return sendError(res, 400, errorBody(400, { message: 'We could not parse the JSON body of your request.' }));
    }
    if (!isObject(body) || typeof body.model !== 'string' || body.model === '') {
      return sendError(res, 400, errorBody(400, { message: 'you must provide a model parameter' }));
    }
    const rawInput = body.input;
    const list: unknown[] = Array.isArray(rawInput) && rawInput.every((x) => typeof x === 'number') ? [rawInput] : Array.isArray(rawInput) ? rawInput : [rawInput];
    const input: string[] = [];
    for (const item of list) {
      // Token arrays are accepted as OpenAI does; their numbers stand in for the text.
      const text = typeof item === 'string' ? item : Array.isArray(item) ? item.join(' ') : undefined;
      if (text === undefined || text === '' || list.length === 0) {
        return sendError(res, 400, errorBody(400, { message: "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference." }));
      }
      if (text.length / 4 > 8192) {
        return sendError(
          res,
          400,
          errorBody(400, {
            message: `This model's maximum context length is 8192 tokens, however you requested ${Math.ceil(text.length / 4)} tokens. Please reduce your prompt.`,
            code: 'context_length_exceeded',
          }),
        );
      }
      input.push(text);
    }
    if (input.length === 0 || input.length > 2048) {
      return sendError(res, 400, errorBody(400, { message: "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference." }));
    }
    fake.embeddingRequests.push({ model: body.model, input });
    waiters.notify();
    const dims = typeof body.dimensions === 'number' && body.dimensions > 0 ? body.dimensions : DEFAULT_EMBEDDING_DIMS;
    const base64 = body.encoding_format === 'base64';
    const tokens = input.reduce((n, text) => n + Math.ceil(text.length / 4), 0);
    sendJson(res, 200, {
      object: 'list',
      data: input.map((text, index) => {
        const vector = fakeEmbedding(text, dims);
        return { object: 'embedding', index, embedding: base64 ? toBase64Float32(vector) : vector };
      }),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  const listening = await listen(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '');
    if (!authorized(req)) {
      const given = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
      return sendError(
        res,
        401,
        given
          ? errorBody(401, { message: `Incorrect API key provided: ${given.slice(0, 3)}****${given.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`, code: 'invalid_api_key' })
          : errorBody(401, { message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", code: '' }),
      );
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') return handleChat(req, res);
    if (req.method === 'POST' && path === '/v1/embeddings') return handleEmbeddings(req, res);
    const modelId = req.method === 'GET' && path.startsWith('/v1/models/') ? decodeURIComponent(path.slice('/v1/models/'.length)) : undefined;
    if (modelId !== undefined && fake.modelRoute !== 'absent') {
      if (fake.modelRoute === 'listed' && !fake.models.includes(modelId)) {
        return sendError(res, 404, errorBody(404, { message: `The model '${modelId}' does not exist`, code: 'model_not_found' }));
      }
      return sendJson(res, 200, { id: modelId, object: 'model', created: 1_700_000_000, owned_by: 'fake' });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: fake.models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })),
      });
    }
    sendError(res, 404, {
      error: { message: `Invalid URL (${req.method} ${path})`, type: 'invalid_request_error', param: null, code: null },
    });
  }, 'fake-openai');

  const fake: FakeOpenAI = {
    url: `${listening.origin}/v1`,
    apiKey: options.apiKey,
    requests: [],
    outcomes: [],
    embeddingRequests: [],
    rejectTools: false,
    rejectImages: false,
    contextWindow: undefined,
    models: ['gpt-4.1-mini', 'gpt-4.1', 'text-embedding-3-small'],
    modelRoute: 'any',
    enqueue(...replies) {
      queue.push(...replies);
    },
    setDefault(reply) {
      fallback = reply;
    },
    waitForRequests(count, timeoutMs = 10_000) {
      return waiters.wait(() => fake.requests.length >= count, timeoutMs, () => {
        const seen = fake.outcomes.map((o) => `${o.kind} ${o.status}${o.message ? ` (${o.message})` : ''}`);
        return `fake-openai saw ${fake.requests.length} chat request(s), wanted ${count}: ${seen.join('; ') || 'none'}`;
      });
    },
    reset() {
      fake.requests.length = 0;
      fake.outcomes.length = 0;
      fake.embeddingRequests.length = 0;
      queue.length = 0;
      fallback = { text: 'ok' };
      fake.rejectTools = false;
      fake.rejectImages = false;
      fake.contextWindow = undefined;
      fake.modelRoute = 'any';
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return listening.close();
    },
  };
  return fake;
}
