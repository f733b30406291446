/**
 * Turns a scripted reply into OpenAI's wire format: one `chat.completion` object, or the `chat.completion.chunk`
 * stream exactly as OpenAI sends it (role delta first, content split over several chunks, each tool call
 * announced with index/id/name and its arguments spread over further chunks, a finish chunk, an optional usage
 * chunk with empty choices, then `[DONE]`). Splitting on purpose makes the app's reassembly do real work.
 */

export interface ToolCallScript {
  name: string;
  /** An object is JSON.stringify'd; a string is sent as is (use it to test malformed arguments). */
  arguments: unknown;
  id?: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface CompletionScript {
  text?: string;
  toolCalls?: ToolCallScript[];
  usage?: Usage;
  finishReason?: 'stop' | 'length' | 'content_filter' | 'tool_calls';
  /** `reasoning_content` deltas before the answer, as vLLM/DeepSeek-style servers send them. */
  reasoning?: string;
}

let idCounter = 0;
const nextId = (prefix: string) => {
  idCounter += 1;
  return `${prefix}${String(idCounter).padStart(6, '0')}fake`;
};

interface ResolvedCall {
  id: string;
  name: string;
  arguments: string;
}

function resolveCalls(script: CompletionScript): ResolvedCall[] {
  return (script.toolCalls ?? []).map((call) => ({
    id: call.id ?? nextId('call_'),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
}

function finishReason(script: CompletionScript, calls: ResolvedCall[]): string {
  return script.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
}

function usageJson(usage: Usage) {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

export function completionTokens(script: CompletionScript): number {
  const calls = (script.toolCalls ?? []).map((c) => (typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {})));
  return Math.max(1, Math.ceil(((script.text ?? '').length + calls.join('').length) / 4));
}

export function completionJson(model: string, script: CompletionScript, usage: Usage) {
  const calls = resolveCalls(script);
  return {
    id: nextId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: script.text ?? null,
          refusal: null,
          annotations: [],
          ...(script.reasoning ? { reasoning_content: script.reasoning } : {}),
          ...(calls.length > 0
            ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReason(script, calls),
      },
    ],
    usage: usageJson(usage),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

/** Text in word-ish pieces, at least two when the text allows, so no answer arrives in a single delta. */
function splitText(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += 2) pieces.push(words.slice(i, i + 2).join(''));
  if (pieces.length === 1 && text.length > 1) {
    const half = Math.ceil(text.length / 2);
    return [text.slice(0, half), text.slice(half)];
  }
  return pieces;
}

/** Arguments in 7-character slices: keys and values are cut mid-token, as real streams do. */
function splitArguments(args: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < args.length; i += 7) pieces.push(args.slice(i, i + 7));
  return pieces;
}

/** The SSE `data:` payloads, in order, ending with '[DONE]'. */
export function completionChunks(model: string, script: CompletionScript, usage: Usage, includeUsage: boolean): string[] {
  const calls = resolveCalls(script);
  const id = nextId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const envelope = (rest: Record<string, unknown>) =>
    JSON.stringify({ id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: 'fp_fake', ...rest });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    envelope({
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
  const out: string[] = [];
  const text = script.text ?? '';
  out.push(chunk({ role: 'assistant', content: calls.length > 0 && !text ? null : '', refusal: null }));
  for (const piece of splitText(script.reasoning ?? '')) out.push(chunk({ reasoning_content: piece }));
  for (const piece of splitText(text)) out.push(chunk({ content: piece }));
  calls.forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of splitArguments(call.arguments)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, finishReason(script, calls)));
  if (includeUsage) out.push(envelope({ choices: [], usage: usageJson(usage) }));
  out.push('[DONE]');
  return out;
}
