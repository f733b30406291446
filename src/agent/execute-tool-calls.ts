import type { ToolCall } from '../core/chat';
import type { ToolRegistry } from '../tools/registry';
import type { Tool, ToolContext } from '../tools/tool';
import { parseLenientJson, parseToolArguments } from '../tools/parse-arguments';
import type { RunStepRecord } from '../core/run-step';
import type { AgentEvent } from './agent-event';

export interface ToolCallOutcome {
  call: ToolCall;
  content: string;
  error?: string;
  /** The arguments as parsed; for a call refused before running, as close to what was written as could be parsed. */
  args?: unknown;
}

export interface ExecuteToolCallsInput {
  calls: ToolCall[];
  registry: ToolRegistry;
  /** Builds the context for one call; `signal` is that call's own (run signal + its timeout). */
  contextFor: (signal: AbortSignal) => ToolContext;
  runSignal: AbortSignal;
  timeoutMs: number;
  /** Epoch ms of the run's time cap: a tool still running then is stopped, whatever its own timeout. */
  deadline?: number;
  iteration: number;
  /** Calls seen so far in the run, by name + canonical arguments. Updated here. */
  seenCalls: Map<string, number>;
  maxIdenticalCalls: number;
  now: () => number;
  onEvent: (event: AgentEvent) => void;
  recordStep: (step: RunStepRecord) => void;
}

/**
 * Runs one round of tool calls in parallel. Nothing here throws: an unknown tool, bad arguments, a repeated call, a
 * failure or a timeout each become a result text the model can act on, in the order the model asked. The calls that
 * do run are announced together in one `tools_started` event (one status line for the round).
 */
export async function executeToolCalls(input: ExecuteToolCallsInput): Promise<ToolCallOutcome[]> {
  const prepared = input.calls.map((call) => prepare(call, input));
  const runnable = prepared.filter((p): p is Runnable => 'tool' in p);
  if (runnable.length > 0) {
    input.onEvent({ type: 'tools_started', calls: runnable.map((p) => ({ name: p.call.name, progress: p.progress })) });
  }
  return Promise.all(prepared.map((p) => ('tool' in p ? run(p, input) : p.outcome)));
}

interface Runnable {
  call: ToolCall;
  tool: Tool;
  args: unknown;
  progress: string;
  signal: AbortSignal;
  timeout: AbortSignal;
  timeoutMs: number;
  context: ToolContext;
  started: number;
}

/** Validates one call and counts it against the repeated-call guard; a refusal is already its outcome. */
function prepare(call: ToolCall, input: ExecuteToolCallsInput): Runnable | { outcome: Promise<ToolCallOutcome> } {
  const started = input.now();
  const refuse = (error: string, args: unknown, content = `Error: ${error}`) => ({
    outcome: Promise.resolve(record(input, { call, content, error, args }, args, started)),
  });
  const tool = input.registry.get(call.name);
  if (!tool) {
    return refuse(`there is no tool named "${call.name}". Available tools: ${input.registry.names().join(', ')}.`, argumentsForRecord(call.arguments));
  }
  const parsed = parseToolArguments(call.arguments, tool.parameters);
  if (!parsed.ok) return refuse(parsed.problem, argumentsForRecord(call.arguments));

  const key = `${call.name}:${canonicalJson(parsed.value)}`;
  const seen = (input.seenCalls.get(key) ?? 0) + 1;
  input.seenCalls.set(key, seen);
  if (seen >= input.maxIdenticalCalls) {
    const told = `${call.name} was already called ${seen - 1} times with exactly these arguments in this answer, so it was not run again. Use the earlier result, change the arguments, or answer with what you have.`;
    return refuse('repeated call refused', parsed.value, `Error: ${told}`);
  }

  const timeoutMs = Math.max(1, Math.min(input.timeoutMs, input.deadline === undefined ? Infinity : input.deadline - started));
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([input.runSignal, timeout]);
  const context = input.contextFor(signal);
  const progress = safeProgress(() => tool.describeProgress(parsed.value, context), call.name);
  return { call, tool, args: parsed.value, progress, signal, timeout, timeoutMs, context, started };
}

async function run(p: Runnable, input: ExecuteToolCallsInput): Promise<ToolCallOutcome> {
  try {
    const content = await raceWithSignal(p.tool.execute(p.args, p.context), p.signal);
    return record(input, { call: p.call, content, args: p.args }, p.args, p.started);
  } catch (error) {
    const reason = input.runSignal.aborted
      ? 'stopped: the answer was cancelled'
      : p.timeout.aborted && p.timeoutMs < input.timeoutMs
        ? `stopped after ${formatSeconds(p.timeoutMs)}: the answer's time limit was reached`
        : p.timeout.aborted
          ? `timed out after ${formatSeconds(p.timeoutMs)}; try a smaller request (e.g. peek_file or search_file instead of load_file)`
          : error instanceof Error
            ? error.message
            : String(error);
    return record(input, { call: p.call, content: `Error: ${reason}`, error: reason, args: p.args }, p.args, p.started);
  }
}

function record(input: ExecuteToolCallsInput, outcome: ToolCallOutcome, args: unknown, started: number): ToolCallOutcome {
  input.recordStep({
    kind: 'tool',
    name: outcome.call.name,
    iteration: input.iteration,
    arguments: args,
    resultChars: outcome.content.length,
    durationMs: input.now() - started,
    error: outcome.error,
  });
  return outcome;
}

/** Arguments that failed validation, as close to what the model meant as can be stored: parsed if JSON, else the text. */
function argumentsForRecord(raw: string): unknown {
  const parsed = parseLenientJson(raw);
  return parsed === undefined ? raw : parsed;
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
