import type { ChatMessage, ChatModel, ChatResponse, ContentPart, TokenUsage, ToolCall } from '../core/chat';
import { ModelError } from '../core/chat';
import type { ApprovalDecision, AwaitingCall } from '../core/approval';
import { toolFailureSummary } from '../core/tool-failure';
import { messageOf, ThreadwiseError } from '../core/errors';
import { executeToolCalls } from './execute-tool-calls';
import type { RunStepRecord } from '../core/run-step';
import type { AgentEvent } from './agent-event';
import type { ToolRegistry } from '../tools/registry';
import type { SkillReader, SubAgentRunner, ThreadTables, ToolContext } from '../tools/tool';
import type { ThreadOutput } from '../tools/thread-output';
import type { ThreadFileAccess } from '../files/thread-file-access';

export interface AgentTurnInput {
  model: ChatModel;
  /** The request as the context builder made it, ending with the current question; the loop appends to a copy. */
  messages: ChatMessage[];
  registry: ToolRegistry;
  resources: { files: ThreadFileAccess; skills: SkillReader; subAgent?: SubAgentRunner; tables?: ThreadTables; output?: ThreadOutput };
  limits: {
    /** Model calls in all; the last one is made without tools, so the model must answer. */
    maxIterations: number;
    toolTimeoutMs: number;
    /** Epoch ms after which no more tools run and the model must answer. */
    deadline: number;
    /** The run's time limit as configured, for the note when it is reached (default: deadline − start). */
    timeLimitMs?: number;
    contextWindow: number;
    /** The same call this many times in a run is refused. Default 3. */
    maxIdenticalCalls?: number;
  };
  now: () => number;
  /** Aborted when someone cancels the answer. */
  signal: AbortSignal;
  /** Stream the answer text as it is written. */
  stream?: boolean;
  onEvent?: (event: AgentEvent) => void;
  recordStep?: (step: RunStepRecord) => void;
  /** A sub-agent's steps are recorded as `subagent_model` / `subagent_tool`, so run totals can tell them apart. */
  recordAs?: 'agent' | 'subagent';
  /** Caps one tool result before it enters the context (the context module knows the budget). */
  fitToolResult?: (content: string, call: ToolCall) => string;
  /** A note after each round of tool results: tokens used and left, the refreshed file list. */
  afterToolRound?: (state: { messages: ChatMessage[]; lastInputTokens: number }) => ChatMessage | undefined;
  /**
   * Shortens the request after a context-length refusal; used once per run. `questionIndex` is where the current
   * question sits in `messages` (the system prompt and history before it, the run's own steps after it).
   */
  trimForRetry?: (messages: ChatMessage[], refusal: { questionIndex: number; error: ModelError }) => ChatMessage[];
  /** Decisions on calls that waited for approval, by call id. */
  decisions?: ReadonlyMap<string, ApprovalDecision>;
  /** Carry on a turn that was parked for approval: `messages` is the parked request, these calls run first. */
  resume?: ParkedTurn;
  timeZone?: string;
}

/** A turn that stopped to wait for approval: everything needed to carry on where it stopped. */
export interface ParkedTurn {
  /** The request so far, ending with the model's tool calls and the results of those that ran. */
  messages: ChatMessage[];
  /** The calls of that round still without a result (each waits for a decision). */
  calls: ToolCall[];
  iteration: number;
  activity: string[];
  toolCalls: Array<{ name: string; args: unknown; error?: string }>;
}

type StopReason = 'answered' | 'iteration_cap' | 'time_cap' | 'cancelled' | 'awaiting_approval';

export interface AgentTurnResult {
  answer: string;
  stop: StopReason;
  /** Said to the user beside the answer when a cap was hit or the answer was cut off. */
  note?: string;
  /** Model calls that returned (retries not counted). */
  iterations: number;
  /** This loop's model tokens (a sub-agent's are in its own steps). */
  usage: TokenUsage;
  /** Compact lines of what the run read ("F1 p. 3–5", "skill jira"). */
  activity: string[];
  toolCalls: Array<{ name: string; args: unknown; error?: string }>;
  /** The request was shortened once after the endpoint refused it as too long. */
  trimmed: boolean;
  /** stop 'awaiting_approval': the calls that wait, and the turn to carry on once they are decided. */
  awaiting?: { calls: AwaitingCall[]; turn: ParkedTurn };
}

/** The final call may retry a little past the deadline: without it there is no answer at all. */
const FINAL_CALL_RETRY_GRACE_MS = 60_000;

/**
 * One answer: call the model, run the tools it asks for (in parallel), feed the results back, until it answers.
 * On the last iteration, or past the deadline, the tools are withdrawn so the model must answer with what it has;
 * the user then gets that answer with a note saying why it may be incomplete. A context-length refusal trims the
 * request and tries once more. Cancelling (the signal) ends the loop at the next step with what there is.
 */
export async function runAgentTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
  let messages = [...(input.resume?.messages ?? input.messages)];
  const question = input.resume ? undefined : messages.at(-1);
  const onEvent = input.onEvent ?? (() => {});
  const recordStep = input.recordStep ?? (() => {});
  const kinds = input.recordAs === 'subagent' ? ({ model: 'subagent_model', tool: 'subagent_tool' } as const) : ({ model: 'model', tool: 'tool' } as const);
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  const activity: string[] = [...(input.resume?.activity ?? [])];
  const toolCalls: AgentTurnResult['toolCalls'] = [...(input.resume?.toolCalls ?? [])];
  const seenCalls = new Map<string, number>();
  let pendingImages: Array<{ fileId: string; name: string; dataUrl: string }> = [];
  let lastInputTokens = 0;
  let bestText = '';
  let trimmed = false;
  let completed = 0;
  const startedAt = input.now();
  const timeLimitMs = input.limits.timeLimitMs ?? input.limits.deadline - startedAt;

  const result = (answer: string, stop: StopReason, notes: Array<string | undefined> = []): AgentTurnResult => {
    const note = notes.filter(Boolean).join(' ');
    return { answer, stop, note: note || undefined, iterations: completed, usage, activity, toolCalls, trimmed };
  };

  const parked = (awaiting: AwaitingCall[], calls: ToolCall[], iteration: number): AgentTurnResult => ({
    ...result(bestText, 'awaiting_approval'),
    awaiting: { calls: awaiting, turn: { messages, calls, iteration, activity, toolCalls } },
  });

  if (input.resume) {
    const waiting = await runToolRound(input.resume.calls, input.resume.iteration);
    if (waiting.length) return parked(waiting, input.resume.calls.filter((call) => waiting.some((w) => w.callId === call.id)), input.resume.iteration);
  }

  for (let iteration = (input.resume?.iteration ?? 0) + 1; ; iteration++) {
    if (input.signal.aborted) return result(bestText, 'cancelled');
    const outOfTime = input.now() >= input.limits.deadline;
    const final = iteration >= input.limits.maxIterations || outOfTime;

    onEvent({ type: 'thinking', iteration });
    let response: ChatResponse;
    try {
      response = await callModel(final, iteration);
    } catch (error) {
      if (input.signal.aborted) return result(bestText, 'cancelled');
      if (error instanceof ModelError && error.kind === 'context_length' && !trimmed && input.trimForRetry) {
        trimmed = true;
        const questionIndex = question ? messages.indexOf(question) : messages.length - 1;
        messages = input.trimForRetry(messages, { questionIndex, error });
        iteration--;
        continue;
      }
      // The deadline passed while the model was thinking: go round once more, without tools.
      if (error instanceof DeadlineReached) continue;
      throw error;
    }
    completed++;
    if (response.text?.trim()) bestText = response.text.trim();

    if (final || response.toolCalls.length === 0) {
      const answer = response.text?.trim() || bestText;
      const cutOff = response.finishReason === 'length' ? 'The answer was cut off at the model’s output limit.' : undefined;
      if (!final) return result(answer, 'answered', [cutOff]);
      if (outOfTime) {
        return result(answer, 'time_cap', [
          `I stopped early: this took longer than my ${formatDuration(timeLimitMs)} limit, so this answer is based on what I had read by then.`,
          cutOff,
        ]);
      }
      // Capped only if the model had been working with tools; a one-iteration budget that answered is just an answer.
      if (iteration > 1) {
        return result(answer, 'iteration_cap', [
          `I reached my limit of ${input.limits.maxIterations} steps, so this answer is based on what I had read by then.`,
          cutOff,
        ]);
      }
      return result(answer, 'answered', [cutOff]);
    }

    if (input.stream && response.text) onEvent({ type: 'text_break' });
    messages.push({ role: 'assistant', content: response.text, toolCalls: response.toolCalls });
    const waiting = await runToolRound(response.toolCalls, iteration);
    if (waiting.length) return parked(waiting, response.toolCalls.filter((call) => waiting.some((w) => w.callId === call.id)), iteration);
  }

  /** Runs one round of calls, appending their results; returns the calls that wait for a decision. */
  async function runToolRound(calls: ToolCall[], iteration: number): Promise<AwaitingCall[]> {
    const { outcomes, awaiting } = await executeToolCalls({
      calls,
      registry: input.registry,
      contextFor: (signal): ToolContext => ({
        files: input.resources.files,
        skills: input.resources.skills,
        subAgent: input.resources.subAgent,
        tables: input.resources.tables,
        output: input.resources.output,
        signal,
        tokensLeft: () => Math.max(0, input.limits.contextWindow - lastInputTokens),
        showImage: (image) => pendingImages.push(image),
        recordActivity: (entry) => activity.push(entry),
      }),
      runSignal: input.signal,
      timeoutMs: input.limits.toolTimeoutMs,
      deadline: input.limits.deadline,
      iteration,
      seenCalls,
      maxIdenticalCalls: input.limits.maxIdenticalCalls ?? 3,
      now: input.now,
      onEvent,
      recordStep: (step) => recordStep({ ...step, kind: kinds.tool }),
      decisions: input.decisions,
      timeZone: input.timeZone,
    });
    for (const outcome of outcomes) {
      toolCalls.push({ name: outcome.call.name, args: outcome.args, error: outcome.failure && toolFailureSummary(outcome.failure) });
      const content = input.fitToolResult ? input.fitToolResult(outcome.content, outcome.call) : outcome.content;
      messages.push({ role: 'tool', toolCallId: outcome.call.id, content });
    }
    // A round with calls still waiting ends here: their results must come right after the others, before anything
    // else, and the budget note once every call of the round has its result.
    if (awaiting.length > 0) return awaiting;
    if (pendingImages.length > 0) {
      // Tool messages cannot carry images in Chat Completions: they follow as a user turn.
      const parts: ContentPart[] = [
        { type: 'text', text: `The image${pendingImages.length > 1 ? 's' : ''} you loaded: ${pendingImages.map((i) => `${i.fileId} (${i.name})`).join(', ')}.` },
        ...pendingImages.map((image) => ({ type: 'image' as const, url: image.dataUrl, detail: 'auto' as const })),
      ];
      messages.push({ role: 'user', content: parts });
      pendingImages = [];
    }
    const note = input.afterToolRound?.({ messages, lastInputTokens });
    if (note) messages.push(note);
    return [];
  }

  async function callModel(final: boolean, iteration: number): Promise<ChatResponse> {
    let started = input.now();
    let streamed = false;
    // Only calls that may still use tools are cut at the deadline; the final call must be allowed to answer.
    const deadline = final ? undefined : AbortSignal.timeout(Math.max(1, input.limits.deadline - input.now()));
    const step = (fields: Partial<RunStepRecord>) =>
      recordStep({ kind: kinds.model, name: input.model.name, iteration, durationMs: input.now() - started, startedAt: started, ...fields });
    try {
      const response = await input.model.complete({
        messages,
        tools: final ? undefined : input.registry.specs(),
        signal: deadline ? AbortSignal.any([input.signal, deadline]) : input.signal,
        retryDeadline: final ? Math.max(input.limits.deadline, input.now() + FINAL_CALL_RETRY_GRACE_MS) : input.limits.deadline,
        onTextDelta: input.stream
          ? (delta) => {
              streamed = true;
              onEvent({ type: 'text_delta', delta });
            }
          : undefined,
        onRetry: (retry) => {
          step({ error: `${retry.error.message} (tried again after ${formatSeconds(retry.delayMs)})` });
          if (retry.textAbandoned) onEvent({ type: 'text_reset' });
          onEvent({ type: 'model_retry', attempt: retry.attempt, delayMs: retry.delayMs, reason: retry.error.kind });
          started = input.now() + retry.delayMs;
        },
      });
      usage.inputTokens += response.usage.inputTokens;
      usage.outputTokens += response.usage.outputTokens;
      lastInputTokens = response.usage.inputTokens;
      step({ inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens });
      return response;
    } catch (error) {
      const hitDeadline = deadline?.aborted === true && !input.signal.aborted;
      step({ error: hitDeadline ? 'stopped at the time limit' : messageOf(error) });
      if (streamed) onEvent({ type: 'text_reset' });
      if (hitDeadline) throw new DeadlineReached();
      throw error;
    }
  }
}

/** The run's time cap cut a model call short. */
export class DeadlineReached extends ThreadwiseError<'deadline_reached'> {
  override readonly name = 'DeadlineReached';
  constructor() {
    super('deadline_reached', 'The answer’s time limit was reached while the model was working.');
  }
}

/** "45-second", "5-minute", "150-second": the limit as the notes users read name it. */
function formatDuration(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds >= 120 && seconds % 60 === 0 ? `${seconds / 60}-minute` : `${seconds}-second`;
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
