/**
 * OTEL_EXPORTER_OTLP_ENDPOINT: each run exports one OpenTelemetry trace to the collector (a fake OTLP/HTTP collector
 * here, over real HTTP, fed by the official SDK's exporter): an invoke_agent span for the run, a chat span per model
 * call and an execute_tool span per tool call, with the GenAI conventions' attributes — and without the text of the
 * question, the answer, the tool arguments or the file unless OTEL_CAPTURE_CONTENT=true.
 */
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANA, CHANNEL, startHarness, type Harness } from '../support/harness';
import type { ChatRequestBody } from '../fakes/fake-openai';
import { eventually } from '../support/eventually';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** Accepts OTLP/HTTP JSON on /v1/traces and keeps every span and every raw body. */
async function startFakeCollector() {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      const raw = Buffer.concat(chunks);
      const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      bodies.push(text);
      const body = JSON.parse(text) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, spans, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && (value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue)));
};
const hasToolResults = (request: ChatRequestBody) => request.messages.some((m) => m.role === 'tool');
const SECRET_QUESTION = 'what is the launch codename for project heron';
const FILE_TEXT = 'Codename: BLUE-KESTREL-7731';

describe.each([
  { capture: false, label: 'by default' },
  { capture: true, label: 'with OTEL_CAPTURE_CONTENT=true' },
])('run traces $label', ({ capture }) => {
  let collector: Awaited<ReturnType<typeof startFakeCollector>>;
  let h: Harness;
  beforeAll(async () => {
    collector = await startFakeCollector();
    h = await startHarness({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_CAPTURE_CONTENT: String(capture) } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await collector?.close();
  });

  it('export one trace per run with a span per model and tool call and their token counts', async () => {
    const file = h.slack.addFile({ name: 'heron.txt', mimetype: 'text/plain', content: Buffer.from(`${FILE_TEXT}\n`) });
    h.model.setDefault((request) =>
      hasToolResults(request)
        ? { text: 'The codename is BLUE-KESTREL-7731.', usage: { prompt_tokens: 900, completion_tokens: 12 } }
        : { toolCalls: [{ name: 'load_file', arguments: { id: 'F1' } }], usage: { prompt_tokens: 700, completion_tokens: 20 } },
    );
    const first = await h.mention({ user: ANA, text: `<@${h.slack.botUserId}> ${SECRET_QUESTION}`, files: [file] });
    await h.answers(CHANNEL, first.ts);
    h.model.setDefault({ text: 'Second answer.', usage: { prompt_tokens: 300, completion_tokens: 5 } });
    const second = await h.mention({ user: ANA, text: `<@${h.slack.botUserId}> and another thing` });
    await h.answers(CHANNEL, second.ts);

    // Spans leave in batches after the run ends; stop() flushes them, and so does the batch timer (1 s). The wait is
    // long because under the whole suite's load an export can take its retries (one run timed out at 15 s).
    await eventually(() => collector.spans.filter((s) => s.name === 'invoke_agent threadwise').length === 2, { timeoutMs: 45_000, what: 'two run spans arrived' });
    await eventually(() => collector.spans.length >= 5, { timeoutMs: 15_000, what: 'every span arrived' });
    const runs = collector.spans.filter((s) => s.name === 'invoke_agent threadwise');
    expect(new Set(runs.map((s) => s.traceId)).size).toBe(2);
    const [firstRun, secondRun] = runs.sort((a, b) => Number(attribute(a, 'threadwise.run.id')) - Number(attribute(b, 'threadwise.run.id')));
    const inTrace = (run: OtlpSpan) => collector.spans.filter((s) => s.traceId === run.traceId);

    const firstSpans = inTrace(firstRun!);
    expect(firstSpans.map((s) => s.name).sort()).toEqual(['chat gpt-4o-mini', 'chat gpt-4o-mini', 'execute_tool load_file', 'invoke_agent threadwise']);
    for (const child of firstSpans.filter((s) => s !== firstRun)) expect(child.parentSpanId).toBe(firstRun!.spanId);
    const chats = firstSpans.filter((s) => s.name.startsWith('chat '));
    expect(chats.map((s) => [attribute(s, 'gen_ai.operation.name'), attribute(s, 'gen_ai.request.model'), attribute(s, 'gen_ai.usage.input_tokens'), attribute(s, 'gen_ai.usage.output_tokens')]).sort()).toEqual([
      ['chat', 'gpt-4o-mini', 700, 20],
      ['chat', 'gpt-4o-mini', 900, 12],
    ]);
    const tool = firstSpans.find((s) => s.name === 'execute_tool load_file')!;
    expect(attribute(tool, 'gen_ai.operation.name')).toBe('execute_tool');
    expect(attribute(tool, 'gen_ai.tool.name')).toBe('load_file');
    expect(attribute(firstRun!, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(attribute(firstRun!, 'gen_ai.usage.input_tokens')).toBe(1_600);
    expect(attribute(firstRun!, 'gen_ai.usage.output_tokens')).toBe(32);
    expect(inTrace(secondRun!).map((s) => s.name).sort()).toEqual(['chat gpt-4o-mini', 'invoke_agent threadwise']);

    const exported = collector.bodies.join('\n');
    if (capture) {
      expect(attribute(firstRun!, 'gen_ai.input.messages')).toContain(SECRET_QUESTION);
      expect(attribute(tool, 'gen_ai.tool.call.arguments')).toBe('{"id":"F1"}');
      expect(exported).toContain('BLUE-KESTREL-7731');
    } else {
      expect(exported).not.toContain('launch codename');
      expect(exported).not.toContain('BLUE-KESTREL');
      expect(exported).not.toContain('gen_ai.tool.call.arguments');
      expect(exported).not.toContain('gen_ai.input.messages');
      expect(exported).not.toContain('gen_ai.output.messages');
    }
  }, 90_000);
});
