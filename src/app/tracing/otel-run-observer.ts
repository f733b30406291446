/**
 * Runs as OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT): one trace per run attempt — an `invoke_agent` span for
 * the run, a `chat` span per model call, an `execute_tool` span per tool call (a sub-agent's calls under the ask_file
 * call that ran them) — named and attributed after the GenAI semantic conventions (gen_ai.operation.name,
 * gen_ai.request.model, gen_ai.usage.*, gen_ai.tool.name). No message or file content unless OTEL_CAPTURE_CONTENT=true:
 * questions, answers, tool arguments and results stay in threadwise's own database otherwise.
 *
 * It implements core/run-observer.ts; only this edge imports the SDK. Spans are exported in batches off the run's path.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { RunObserver, RunObservation, ObservedRun, RunEnd } from '../../core/run-observer';
import type { RunStepRecord } from '../../core/run-step';

export interface TracingOptions {
  /** OTLP/HTTP base, e.g. http://localhost:4318; spans go to <endpoint>/v1/traces as the OTLP spec says. */
  endpoint: string;
  captureContent: boolean;
  serviceName?: string;
  /** Tests and benches: export through this instead of OTLP/HTTP. */
  exporter?: SpanExporter;
}

export interface Tracing {
  observer: RunObserver;
  /** Sends what is buffered (tests; shutdown does it too). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const AGENT_NAME = 'threadwise';

export function createTracing(options: TracingOptions): Tracing {
  const exporter = options.exporter ?? new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces`, timeoutMillis: 10_000 });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'threadwise' }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 })],
  });
  const tracer = provider.getTracer('threadwise');
  return {
    observer: { runStarted: (run) => observeRun(tracer, run, options.captureContent) },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

function observeRun(tracer: Tracer, run: ObservedRun, captureContent: boolean): RunObservation {
  const runSpan = tracer.startSpan(`invoke_agent ${AGENT_NAME}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': AGENT_NAME,
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': run.model,
      'gen_ai.conversation.id': `${run.channelId}:${run.threadTs}`,
      'threadwise.run.id': run.runId,
      'threadwise.run.attempt': run.attempt,
      'slack.channel.id': run.channelId,
      ...(run.userId ? { 'slack.user.id': run.userId } : {}),
      ...(captureContent && run.question ? { 'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: run.question }] }]) } : {}),
    },
  });
  const runContext = trace.setSpan(context.active(), runSpan);
  // A sub-agent's calls end before the ask_file call that ran them: held until it ends, then nested under it.
  let subAgentSteps: RunStepRecord[] = [];

  const spanOf = (step: RunStepRecord, parent = runContext): Span => {
    const startTime = step.startedAt ?? Date.now() - step.durationMs;
    const tool = step.kind === 'tool' || step.kind === 'subagent_tool';
    const model = step.kind === 'model' || step.kind === 'subagent_model';
    const attributes: Attributes = model
      ? {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': step.name,
          ...(step.inputTokens !== undefined ? { 'gen_ai.usage.input_tokens': step.inputTokens } : {}),
          ...(step.outputTokens !== undefined ? { 'gen_ai.usage.output_tokens': step.outputTokens } : {}),
        }
      : tool
        ? {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': step.name,
            'gen_ai.tool.type': 'function',
            ...(step.resultChars !== undefined ? { 'threadwise.tool.result_chars': step.resultChars } : {}),
            ...(captureContent && step.arguments !== undefined ? { 'gen_ai.tool.call.arguments': JSON.stringify(step.arguments) } : {}),
            ...(captureContent && step.resultPreview ? { 'gen_ai.tool.call.result': step.resultPreview } : {}),
          }
        : { 'threadwise.step.kind': step.kind, 'threadwise.step.name': step.name };
    const name = model ? `chat ${step.name}` : tool ? `execute_tool ${step.name}` : `${step.kind} ${step.name}`;
    const span = tracer.startSpan(
      name,
      { kind: model ? SpanKind.CLIENT : SpanKind.INTERNAL, startTime, attributes: { ...attributes, 'threadwise.iteration': step.iteration, 'threadwise.subagent': step.kind.startsWith('subagent_') } },
      parent,
    );
    if (step.error) {
      // The error's words may quote the model or a file: only its presence goes out unless content is allowed.
      span.setStatus({ code: SpanStatusCode.ERROR, message: captureContent ? step.error : undefined });
      span.setAttribute('error.type', model ? 'model_error' : 'tool_error');
    }
    return span;
  };
  const end = (span: Span, step: RunStepRecord) => span.end((step.startedAt ?? Date.now() - step.durationMs) + step.durationMs);

  return {
    step(step) {
      try {
        if (step.kind.startsWith('subagent_')) {
          subAgentSteps.push(step);
          return;
        }
        const span = spanOf(step);
        if (step.kind === 'tool' && step.name === 'ask_file') {
          const from = step.startedAt ?? 0;
          const mine = subAgentSteps.filter((s) => (s.startedAt ?? from) >= from && (s.startedAt ?? from) <= from + step.durationMs);
          subAgentSteps = subAgentSteps.filter((s) => !mine.includes(s));
          const inner = trace.setSpan(runContext, span);
          for (const child of mine) end(spanOf(child, inner), child);
        }
        end(span, step);
      } catch {
        // Telemetry never breaks an answer.
      }
    },
    finished(outcome: RunEnd) {
      try {
        for (const orphan of subAgentSteps) end(spanOf(orphan), orphan);
        subAgentSteps = [];
        runSpan.setAttributes({
          'threadwise.run.status': outcome.status,
          ...(outcome.inputTokens !== undefined ? { 'gen_ai.usage.input_tokens': outcome.inputTokens } : {}),
          ...(outcome.outputTokens !== undefined ? { 'gen_ai.usage.output_tokens': outcome.outputTokens } : {}),
          ...(outcome.costUsd !== undefined ? { 'threadwise.cost_usd': outcome.costUsd } : {}),
          ...(outcome.iterations !== undefined ? { 'threadwise.iterations': outcome.iterations } : {}),
          ...(captureContent && outcome.answer ? { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: outcome.answer }] }]) } : {}),
        });
        if (outcome.status === 'failed') runSpan.setStatus({ code: SpanStatusCode.ERROR, message: captureContent ? outcome.error : undefined });
        runSpan.end();
      } catch {
        // Telemetry never breaks an answer.
      }
    },
  };
}
