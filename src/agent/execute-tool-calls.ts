import type { ToolCall } from './chat-model';
import type { ToolRegistry } from '../tools/registry';
import type { ToolContext } from '../tools/tool';
import { parseToolArguments } from '../tools/parse-arguments';
import type { AgentEvent, RunStepRecord } from './run-records';

export interface ToolCallOutcome {
  call: ToolCall;
  content: string;
  error?: string;
  /** Parsed arguments, when they were valid. */
  args?: unknown;
}

export interface ExecuteToolCallsInput {
  calls: ToolCall[];
  registry: ToolRegistry;
  /** Builds the context for one call; `signal` is that call's own (run signal + its timeout). */
  contextFor: (signal: AbortSignal) => ToolContext;
  runSignal: AbortSignal;
  timeoutMs: number;
  iteration: number;
  /** Calls seen so far in the run, by name + canonical arguments. Updated here. */
  seenCalls: Map<string, number>;
  maxIdenticalCalls: number;
  now: () => number;
  onEvent: (event: AgentEvent) => void;
  recordStep: (step: RunStepRecord) => void;
}

/**
 * Runs one round of tool calls in parallel. Nothing here throws: an unknown tool, bad arguments, a failure or a
 * timeout each become a result text the model can act on, in the order the model asked.
 */
export function executeToolCalls(input: ExecuteToolCallsInput): Promise<ToolCallOutcome[]> {
  return Promise.all(input.calls.map((call) => executeOne(call, input)));
}

async function executeOne(call: ToolCall, input: ExecuteToolCallsInput): Promise<ToolCallOutcome> {
  const started = input.now();
  const finish = (outcome: ToolCallOutcome): ToolCallOutcome => {
    input.recordStep({
      kind: 'tool',
      name: call.name,
      iteration: input.iteration,
      arguments: outcome.args ?? call.arguments,
      resultChars: outcome.content.length,
      durationMs: input.now() - started,
      error: outcome.error,
    });
    return outcome;
  };

  const tool = input.registry.get(call.name);
  if (!tool) {
    const error = `there is no tool named "${call.name}". Available tools: ${input.registry.names().join(', ')}.`;
    return finish({ call, content: `Error: ${error}`, error });
  }
  const parsed = parseToolArguments(call.arguments, tool.parameters);
  if (!parsed.ok) return finish({ call, content: `Error: ${parsed.problem}`, error: parsed.problem });

  const key = `${call.name}:${canonicalJson(parsed.value)}`;
  const seen = (input.seenCalls.get(key) ?? 0) + 1;
  input.seenCalls.set(key, seen);
  if (seen >= input.maxIdenticalCalls) {
    const error = `${call.name} was already called ${seen - 1} times with exactly these arguments in this answer; it was not run again. Use the earlier result, change the arguments, or answer with what you have.`;
    return finish({ call, content: `Error: ${error}`, error: 'repeated call refused', args: parsed.value });
  }

  const timeout = AbortSignal.timeout(input.timeoutMs);
  const signal = AbortSignal.any([input.runSignal, timeout]);
  const context = input.contextFor(signal);
  try {
    input.onEvent({ type: 'tool_started', name: call.name, progress: safeProgress(() => tool.describeProgress(parsed.value, context), call.name) });
    const content = await raceWithSignal(tool.execute(parsed.value, context), signal);
    return finish({ call, content, args: parsed.value });
  } catch (error) {
    const reason = timeout.aborted
      ? `timed out after ${formatSeconds(input.timeoutMs)}; try a smaller request (e.g. peek_file or search_file instead of load_file)`
      : input.runSignal.aborted
        ? 'stopped: the answer was cancelled'
        : error instanceof Error
          ? error.message
          : String(error);
    return finish({ call, content: `Error: ${reason}`, error: reason, args: parsed.value });
  }
}

/** A tool that ignores its signal must still not hold up the loop past its timeout. */
function raceWithSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function safeProgress(describe: () => string, name: string): string {
  try {
    return describe();
  } catch {
    return `running ${name}…`;
  }
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** JSON with sorted keys, so {a,b} and {b,a} count as the same call. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
