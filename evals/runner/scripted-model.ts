/**
 * The model behind `npm run eval -- --scripted`: an OpenAI-compatible server on 127.0.0.1 that answers each chat
 * completion with the next reply of the case's script (tool calls or text), streamed the way OpenAI streams when
 * asked to. The real pipeline — the `openai` SDK included — talks to it over HTTP as to any endpoint, so CI runs
 * every case end to end without a model, and a case whose criteria or script drift apart fails visibly.
 *
 * A call beyond the script gets a 400 naming the call, which the run turns into a failure the case reports.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptedReply } from './case-file';

export interface ScriptedModel {
  /** http://127.0.0.1:PORT/v1 */
  url: string;
  /** Replaces the replies still to come. */
  load(replies: readonly ScriptedReply[]): void;
  /** Chat completions answered since the last load, and those that found the script empty. */
  usage(): { served: number; unscripted: number; left: number };
  close(): Promise<void>;
}

interface ChatBody {
  model?: string;
  messages?: unknown[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  let queue: ScriptedReply[] = [];
  let served = 0;
  let unscripted = 0;
  let callId = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(error), type: 'server_error' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const route = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '');
    if (req.method === 'GET' && route === '/v1/models') return send(res, 200, { object: 'list', data: [{ id: 'scripted', object: 'model', owned_by: 'evals' }] });
    if (req.method !== 'POST' || route !== '/v1/chat/completions') {
      return send(res, 404, { error: { message: `The scripted model answers only chat completions (not ${req.method} ${route}).`, type: 'invalid_request_error' } });
    }
    const body = JSON.parse(await readBody(req)) as ChatBody;
    const reply = queue.shift();
    if (!reply) {
      unscripted += 1;
      return send(res, 400, {
        error: { message: `The case's script has no reply for model call #${served + unscripted}: add one to its script.`, type: 'invalid_request_error', code: 'script_exhausted' },
      });
    }
    served += 1;
    const model = body.model ?? 'scripted';
    const calls = 'tool_calls' in reply ? reply.tool_calls.map((call) => ({ id: `call_${++callId}`, name: call.name, arguments: JSON.stringify(call.arguments) })) : [];
    const content = reply.text ?? null;
    const usage = {
      prompt_tokens: estimatePromptTokens(body.messages ?? []),
      completion_tokens: Math.max(1, Math.ceil(((content ?? '').length + calls.reduce((n, c) => n + c.arguments.length, 0)) / 4)),
    };
    const finish = calls.length ? 'tool_calls' : 'stop';
    const base = { id: `chatcmpl-${served}`, created: Math.floor(Date.now() / 1000), model };
    if (body.stream !== true) {
      return send(res, 200, {
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content,
              ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
            },
            finish_reason: finish,
          },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const chunk = (delta: object, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }));
    // In pieces, as a model writes: the terminal shows the answer arriving, the pipeline reassembles it.
    for (const piece of (content ?? '').match(/[\s\S]{1,24}/g) ?? []) res.write(chunk({ content: piece }));
    for (const [index, call] of calls.entries()) {
      res.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      res.write(chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }));
    }
    res.write(chunk({}, finish));
    if (body.stream_options?.include_usage) {
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    load(replies) {
      queue = [...replies];
      served = 0;
      unscripted = 0;
    },
    usage: () => ({ served, unscripted, left: queue.length }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** About four characters a token, and an image as OpenAI counts a 1024-pixel one at detail auto (765), not its base64. */
function estimatePromptTokens(messages: unknown[]): number {
  let images = 0;
  const text = JSON.stringify(messages).replace(/"data:[^"]*"/g, () => {
    images += 1;
    return '""';
  });
  return Math.ceil(text.length / 4) + images * 765;
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
