import type { ToolCall } from '../core/chat';
import { raceWithSignal } from '../core/abort';
import type { ToolRegistry } from '../tools/registry';
import type { Tool, ToolContext } from '../tools/tool';
import { parseLenientJson, parseToolArguments } from '../tools/parse-arguments';
import { previewOfResult, type RunStepRecord } from '../core/run-step';
import type { AgentEvent } from './agent-event';
import { errorCode, messageOf } from '../core/errors';
import { toolFailureContent, toolFailureSummary, type ToolFailure, type ToolFailureKind } from '../core/tool-failure';
import type { ApprovalDecision, AwaitingCall } from '../core/approval';
import { isSignInRequired } from '../core/sign-in';

interface ToolCallOutcome {
  call: ToolCall;
  content: string;
  /** Set when the call produced no result; `content` is then its sentence for the model. */
  failure?: ToolFailure;
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
  /** Decisions on calls that needed approval, by call id; a call that needs one and has none is not run. */
  decisions?: ReadonlyMap<string, ApprovalDecision>;
  /** For the sentences about decisions. */
  timeZone?: string;
}

export interface ToolRound {
  /** Calls that ran or were refused, in the order the model asked. */
  outcomes: ToolCallOutcome[];
  /** Calls that wait for a person's decision: not run, no result yet. */
  awaiting: AwaitingCall[];
}

/**
 * Runs one round of tool calls in parallel. Nothing here throws: an unknown tool, bad arguments, a repeated call, a
 * failure or a timeout each become a result text the model can act on, in the order the model asked. The calls that
 * do run are announced together in one `tools_started` event (one status line for the round).
 */
export async function executeToolCalls(input: ExecuteToolCallsInput): Promise<ToolRound> {
  const prepared = input.calls.map((call) => prepare(call, input));
  const runnable = prepared.filter((p): p is Runnable => 'tool' in p);
  if (runnable.length > 0) {
    input.onEvent({ type: 'tools_started', calls: runnable.map((p) => ({ name: p.call.name, progress: p.progress })) });
  }
  const awaiting = prepared.flatMap((p) => ('awaiting' in p ? [p.awaiting] : []));
  const settled = await Promise.all(prepared.flatMap((p) => ('tool' in p ? [run(p, input)] : 'outcome' in p ? [p.outcome] : [])));
  // A call whose tool needs the speaker to sign in first waits like one that needs approval (core/sign-in.ts).
  const outcomes = settled.filter((o): o is ToolCallOutcome => !('awaiting' in o));
  awaiting.push(...settled.flatMap((o) => ('awaiting' in o ? [o.awaiting] : [])));
  return { outcomes, awaiting };
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
  /** For an approved call: claims its one execution first. */
  claim?: () => Promise<boolean>;
}

/** Validates one call and counts it against the repeated-call guard; a refusal is already its outcome. */
function prepare(call: ToolCall, input: ExecuteToolCallsInput): Runnable | { outcome: Promise<ToolCallOutcome> } | { awaiting: AwaitingCall } {
  const started = input.now();
  const refuse = (kind: ToolFailureKind, sentence: string, args: unknown, summary?: string) => ({
    outcome: Promise.resolve(record(input, failed(call, args, { kind, sentence, summary }), args, started)),
  });
  const tool = input.registry.get(call.name);
  if (!tool) {
    return refuse('unknown_tool', `there is no tool named "${call.name}". Available tools: ${input.registry.names().join(', ')}.`, argumentsForRecord(call.arguments));
  }
  const parsed = parseToolArguments(call.arguments, tool.parameters);
  if (!parsed.ok) return refuse('invalid_arguments', parsed.problem, argumentsForRecord(call.arguments));

  const key = `${call.name}:${canonicalJson(parsed.value)}`;
  const seen = (input.seenCalls.get(key) ?? 0) + 1;
  input.seenCalls.set(key, seen);
  if (seen >= input.maxIdenticalCalls) {
    const told = `${call.name} was already called ${seen - 1} times with exactly these arguments in this answer, so it was not run again. Use the earlier result, change the arguments, or answer with what you have.`;
    return refuse('repeated_call', told, parsed.value, 'repeated call refused');
  }

  const prompt = tool.approval?.(parsed.value);
  const decision = prompt ? input.decisions?.get(call.id) : undefined;
  if (prompt && !decision) return { awaiting: { callId: call.id, prompt } };
  if (decision && decision.status !== 'approved') return refuse('not_approved', notApprovedSentence(call.name, decision, input.timeZone), parsed.value);

  const timeoutMs = Math.max(1, Math.min(input.timeoutMs, input.deadline === undefined ? Infinity : input.deadline - started));
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([input.runSignal, timeout]);
  const context = input.contextFor(signal);
  const progress = safeProgress(() => tool.describeProgress(parsed.value, context), call.name);
  return { call, tool, args: parsed.value, progress, signal, timeout, timeoutMs, context, started, claim: decision?.claim };
}

async function run(p: Runnable, input: ExecuteToolCallsInput): Promise<ToolCallOutcome | { awaiting: AwaitingCall }> {
  if (p.claim && !(await p.claim())) {
    const sentence = `${p.call.name} was approved and started, but I was restarted while it ran, so whether it took effect is unknown. It was not run again: tell the user to check before trying again.`;
    return record(input, failed(p.call, p.args, { kind: 'not_approved', sentence }), p.args, p.started);
  }
  try {
    const content = await raceWithSignal(p.tool.execute(p.args, p.context), p.signal);
    return record(input, { call: p.call, content, args: p.args }, p.args, p.started);
  } catch (error) {
    if (isSignInRequired(error) && !input.runSignal.aborted) {
      const prompt = { tool: p.call.name, server: error.prompt.server, action: p.call.name, arguments: p.args };
      return { awaiting: { callId: p.call.id, prompt, signIn: error.prompt } };
    }
    const failure = input.runSignal.aborted
      ? { kind: 'cancelled' as const, sentence: 'stopped: the answer was cancelled' }
      : p.timeout.aborted && p.timeoutMs < input.timeoutMs
        ? { kind: 'run_time_limit' as const, sentence: `stopped after ${formatSeconds(p.timeoutMs)}: the answer's time limit was reached` }
        : p.timeout.aborted
          ? {
              kind: 'timed_out' as const,
              sentence: `timed out after ${formatSeconds(p.timeoutMs)}; try a smaller request (e.g. peek_file or search_file instead of load_file)`,
            }
          : { kind: 'failed' as const, code: errorCode(error), sentence: messageOf(error) };
    return record(input, failed(p.call, p.args, failure), p.args, p.started);
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
    error: outcome.failure && toolFailureSummary(outcome.failure),
    startedAt: started,
    resultPreview: previewOfResult(outcome.content),
  });
  return outcome;
}

function failed(call: ToolCall, args: unknown, failure: Pick<ToolFailure, 'kind' | 'sentence' | 'code' | 'summary'>): ToolCallOutcome {
  const typed: ToolFailure = { tool: call.name, callId: call.id, input: args, ...failure };
  return { call, content: toolFailureContent(typed), failure: typed, args };
}

/** Arguments that failed validation, as close to what the model meant as can be stored: parsed if JSON, else the text. */
function argumentsForRecord(raw: string): unknown {
  const parsed = parseLenientJson(raw);
  return parsed === undefined ? raw : parsed;
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
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What the model is told about a call a person did not let run. */
function notApprovedSentence(tool: string, decision: Exclude<ApprovalDecision, { status: 'approved' }>, timeZone = 'UTC'): string {
  const time = decision.at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone, timeZoneName: 'short' });
  if (decision.status === 'denied') {
    return `${decision.by} denied this call to ${tool} at ${time}, so it was not run. Answer without it: say what you would have done, and do not ask for the same call again unless they ask you to.`;
  }
  return `Nobody approved this call to ${tool} within ${decision.afterMinutes} minutes, so it was not run. Tell the user it expired and what it would have done; they can ask again.`;
}
