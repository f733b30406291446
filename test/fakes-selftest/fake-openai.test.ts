/**
 * The fake OpenAI server driven by the real `openai` SDK: if the SDK reassembles its streams and raises its
 * typed errors, the app's model code sees what it would see from OpenAI.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cosine, startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';

const API_KEY = 'sk-fake-test';
let fake: FakeOpenAI;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY });
  client = new OpenAI({ baseURL: fake.url, apiKey: API_KEY, maxRetries: 0, timeout: 5_000 });
});
afterAll(() => fake.close());
afterEach(() => fake.reset());

const user = (content: OpenAI.Chat.ChatCompletionUserMessageParam['content']): OpenAI.Chat.ChatCompletionMessageParam => ({
  role: 'user',
  content,
});
const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'load_file', description: 'Load a file', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
  },
];
// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

describe('chat completions', () => {
  it('serves scripted replies in order, then the default', async () => {
    fake.enqueue({ text: 'first', usage: { prompt_tokens: 11, completion_tokens: 3 } }, { text: 'second' });
    const a = await client.chat.completions.create({ model: 'gpt-test', messages: [user('hi')] });
    expect(a.choices[0]?.message.content).toBe('first');
    expect(a.choices[0]?.finish_reason).toBe('stop');
    expect(a.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 });
    expect(a.model).toBe('gpt-test');
    const b = await client.chat.completions.create({ model: 'gpt-test', messages: [user('x'.repeat(400))] });
    expect(b.choices[0]?.message.content).toBe('second');
    expect(b.usage?.prompt_tokens).toBeGreaterThanOrEqual(100); // chars / 4
    const c = await client.chat.completions.create({ model: 'gpt-test', messages: [user('hi')] });
    expect(c.choices[0]?.message.content).toBe('ok');
    expect(fake.requests.map((r) => r.messages.length)).toEqual([1, 1, 1]);
  });

  it('computes a reply from the request when given a function', async () => {
    fake.setDefault((request) => ({ text: `you said ${String(request.messages.at(-1)?.content)}` }));
    const reply = await client.chat.completions.create({ model: 'm', messages: [user('ping')] });
    expect(reply.choices[0]?.message.content).toBe('you said ping');
  });

  it('returns tool calls with JSON arguments (objects stringified, strings as given)', async () => {
    fake.enqueue({ toolCalls: [{ name: 'load_file', arguments: { id: 'F1' }, id: 'call_a' }, { name: 'load_file', arguments: '{bad json' }] });
    const reply = await client.chat.completions.create({ model: 'm', messages: [user('read it')], tools });
    const calls = reply.choices[0]?.message.tool_calls ?? [];
    expect(reply.choices[0]?.finish_reason).toBe('tool_calls');
    expect(calls.map((c) => (c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : []))).toEqual([
      ['call_a', 'load_file', '{"id":"F1"}'],
      [expect.stringMatching(/^call_/), 'load_file', '{bad json'],
    ]);
  });

  it('streams text and tool calls in OpenAI’s chunk format, reassembled by the SDK', async () => {
    fake.enqueue({
      text: 'Let me look at both files.',
      toolCalls: [
        { name: 'load_file', arguments: { id: 'F1' } },
        { name: 'load_file', arguments: { id: 'F2', note: 'a longer argument string to split' } },
      ],
    });
    const stream = client.chat.completions.stream({
      model: 'm',
      messages: [user('compare')],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    stream.on('content', (delta) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(message.content).toBe('Let me look at both files.');
    expect(deltas.length).toBeGreaterThan(1);
    expect(message.tool_calls?.map((c) => (c.type === 'function' ? JSON.parse(c.function.arguments) : undefined))).toEqual([
      { id: 'F1' },
      { id: 'F2', note: 'a longer argument string to split' },
    ]);
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('streams raw chunks: role first, split arguments, finish, usage with empty choices', async () => {
    fake.enqueue({ toolCalls: [{ name: 'load_file', arguments: { id: 'F123456789' } }] });
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [user('go')],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const argumentDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((t) => t.function?.arguments ?? '');
    expect(argumentDeltas.filter(Boolean).length).toBeGreaterThan(1);
    expect(argumentDeltas.join('')).toBe('{"id":"F123456789"}');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('can cut a stream short', async () => {
    fake.enqueue({ text: 'one two three four five six', disconnectAfterChunks: 2 });
    const stream = await client.chat.completions.create({ model: 'm', messages: [user('go')], stream: true });
    await expect(
      (async () => {
        for await (const _chunk of stream) {
          // drain
        }
      })(),
    ).rejects.toThrow();
  });
});

describe('errors', () => {
  it('answers scripted statuses as the SDK’s typed errors, with retry-after honoured by its retries', async () => {
    fake.enqueue({ status: 500 });
    await expect(client.chat.completions.create({ model: 'm', messages: [user('a')] })).rejects.toBeInstanceOf(OpenAI.InternalServerError);

    fake.enqueue({ status: 400, error: { message: "This model's maximum context length is 10 tokens.", code: 'context_length_exceeded' } });
    const error = await client.chat.completions.create({ model: 'm', messages: [user('a')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded' });

    const retrying = new OpenAI({ baseURL: fake.url, apiKey: API_KEY, maxRetries: 1 });
    fake.enqueue({ status: 429, retryAfter: 0 }, { text: 'after the wait' });
    const reply = await retrying.chat.completions.create({ model: 'm', messages: [user('a')] });
    expect(reply.choices[0]?.message.content).toBe('after the wait');
    expect(fake.outcomes.slice(-2).map((o) => o.status)).toEqual([429, 200]);
  });

  it('delays replies; a client timeout aborts the request', async () => {
    fake.enqueue({ delayMs: 2_000, then: { text: 'too late' } });
    const impatient = new OpenAI({ baseURL: fake.url, apiKey: API_KEY, maxRetries: 0, timeout: 100 });
    await expect(impatient.chat.completions.create({ model: 'm', messages: [user('a')] })).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    fake.enqueue({ delayMs: 20, then: { text: 'on time' } });
    expect((await client.chat.completions.create({ model: 'm', messages: [user('a')] })).choices[0]?.message.content).toBe('on time');
  });

  it('refuses a wrong API key with 401', async () => {
    const wrong = new OpenAI({ baseURL: fake.url, apiKey: 'sk-wrong-key', maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('rejectTools and rejectImages answer 400 without consuming the script', async () => {
    fake.enqueue({ text: 'fallback answer' });
    fake.rejectTools = true;
    const noTools = await client.chat.completions.create({ model: 'm', messages: [user('a')], tools }).catch((e: Error) => e);
    expect(noTools).toBeInstanceOf(OpenAI.BadRequestError);
    expect((noTools as Error).message).toMatch(/tools is not supported/);
    expect((await client.chat.completions.create({ model: 'm', messages: [user('a')] })).choices[0]?.message.content).toBe('fallback answer');

    fake.rejectImages = true;
    const image = user([
      { type: 'text', text: 'see' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
    ]);
    await expect(client.chat.completions.create({ model: 'm', messages: [image] })).rejects.toThrow(/image input is not supported/);
    expect(fake.outcomes.map((o) => o.kind)).toEqual(['rejected', 'reply', 'rejected']);
  });

  it('enforces a context window when one is set', async () => {
    fake.contextWindow = 50;
    await expect(client.chat.completions.create({ model: 'm', messages: [user('x'.repeat(1_000))] })).rejects.toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
    });
  });
});

describe('strict request validation', () => {
  const quiet = () => vi.spyOn(console, 'warn').mockImplementation(() => {});
  const call = (id: string): OpenAI.Chat.ChatCompletionMessageToolCall => ({ id, type: 'function', function: { name: 'load_file', arguments: '{"id":"F1"}' } });

  it('accepts a well-formed tool round trip with an image', async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'be brief' },
      user([
        { type: 'text', text: 'what is in it?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}`, detail: 'high' } },
      ]),
      { role: 'assistant', content: null, tool_calls: [call('c1'), call('c2')] },
      { role: 'tool', tool_call_id: 'c2', content: 'two' },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
    ];
    await expect(client.chat.completions.create({ model: 'm', messages, tools })).resolves.toBeTruthy();
  });

  it.each<[string, OpenAI.Chat.ChatCompletionMessageParam[], RegExp]>([
    ['a tool result without a preceding call', [user('a'), { role: 'tool', tool_call_id: 'c1', content: 'x' }], /must be a response to a preceeding message with 'tool_calls'/],
    [
      'a tool result for an unknown call id',
      [user('a'), { role: 'assistant', tool_calls: [call('c1')] }, { role: 'tool', tool_call_id: 'c9', content: 'x' }],
      /'tool_call_id' of 'c9' not found/,
    ],
    [
      'a call left unanswered',
      [user('a'), { role: 'assistant', tool_calls: [call('c1'), call('c2')] }, { role: 'tool', tool_call_id: 'c1', content: 'x' }, user('b')],
      /did not have response messages: c2/,
    ],
    ['a call unanswered at the end', [user('a'), { role: 'assistant', tool_calls: [call('c1')] }], /did not have response messages: c1/],
    ['an assistant message with neither content nor calls', [user('a'), { role: 'assistant', content: null }], /expected a string, got null/],
    [
      'a Slack file URL as an image',
      [user([{ type: 'image_url', image_url: { url: 'https://files.slack.com/files-pri/T1-F1/shot.png' } }])],
      /Error while downloading/,
    ],
    [
      'an HTML page labelled as an image',
      [user([{ type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from('<html>sign in</html>').toString('base64')}` } }])],
      /unsupported image/,
    ],
    ['a non-image data URL', [user([{ type: 'image_url', image_url: { url: 'data:application/pdf;base64,JVBERi0=' } }])], /Invalid MIME type/],
    ['an image in a system message', [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'x' } }] as never }], /Supported values are: 'text'/],
  ])('rejects %s', async (_label, messages, pattern) => {
    const warn = quiet();
    fake.enqueue({ text: 'kept' });
    await expect(client.chat.completions.create({ model: 'm', messages, tools })).rejects.toThrow(pattern);
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
    expect(fake.outcomes.at(-1)?.kind).toBe('invalid');
    // The scripted reply is still there for a corrected request.
    expect((await client.chat.completions.create({ model: 'm', messages: [user('ok')] })).choices[0]?.message.content).toBe('kept');
  });

  it('rejects bad tool definitions and a tool_choice without tools', async () => {
    const warn = quiet();
    const badName: OpenAI.Chat.ChatCompletionTool[] = [{ type: 'function', function: { name: 'load file', parameters: { type: 'object' } } }];
    await expect(client.chat.completions.create({ model: 'm', messages: [user('a')], tools: badName })).rejects.toThrow(/does not match pattern/);
    const badSchema: OpenAI.Chat.ChatCompletionTool[] = [{ type: 'function', function: { name: 'x', parameters: { type: 'string' } } }];
    await expect(client.chat.completions.create({ model: 'm', messages: [user('a')], tools: badSchema })).rejects.toThrow(/Invalid schema/);
    await expect(client.chat.completions.create({ model: 'm', messages: [user('a')], tool_choice: 'auto' })).rejects.toThrow(/only allowed when 'tools'/);
    await expect(client.chat.completions.create({ model: 'm', messages: [user('a')], tools: [] })).rejects.toThrow(/empty array/);
    warn.mockRestore();
  });
});

describe('embeddings and models', () => {
  it('gives deterministic, normalised vectors where overlapping texts are closer', async () => {
    const texts = ['reset the admin password', 'how to reset a password', 'quarterly revenue by region'];
    const first = await client.embeddings.create({ model: 'text-embedding-3-small', input: texts });
    const again = await client.embeddings.create({ model: 'text-embedding-3-small', input: texts, encoding_format: 'float' });
    const vectors = first.data.map((d) => Array.from(d.embedding));
    expect(vectors[0]).toHaveLength(64);
    // The SDK's default base64 transport and the float form decode to the same numbers (float32 precision).
    vectors.forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(again.data[i]!.embedding[j]!, 6)));
    expect(cosine(vectors[0]!, vectors[0]!)).toBeCloseTo(1, 5);
    expect(cosine(vectors[0]!, vectors[1]!)).toBeGreaterThan(cosine(vectors[0]!, vectors[2]!));
    expect(fake.embeddingRequests).toEqual([
      { model: 'text-embedding-3-small', input: texts },
      { model: 'text-embedding-3-small', input: texts },
    ]);
  });

  it('honours dimensions and rejects empty input', async () => {
    const small = await client.embeddings.create({ model: 'e', input: 'abc', dimensions: 16 });
    expect(small.data[0]?.embedding).toHaveLength(16);
    await expect(client.embeddings.create({ model: 'e', input: '' })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('lists models and waits for requests', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toContain('gpt-4.1-mini');
    const waiting = fake.waitForRequests(1, 2_000);
    await client.chat.completions.create({ model: 'm', messages: [user('a')] });
    await waiting;
    await expect(fake.waitForRequests(5, 50)).rejects.toThrow(/saw 1 chat request/);
  });
});
