import type { ChatMessage, ChatModel, ChatResponse, ContentPart, TokenUsage, ToolCall } from './chat-model';
import { ModelError } from './chat-model';
import { executeToolCalls } from './execute-tool-calls';
import type { AgentEvent, RunStepRecord } from './run-records';
import type { ToolRegistry } from '../tools/registry';
import type { SkillReader, SubAgentRunner, ThreadFileAccess, ToolContext } from '../tools/tool';

export interface AgentTurnInput {
  model: ChatModel;
  /** The request as the context builder made it; the loop appends to a copy. */
  messages: ChatMessage[];
  registry: ToolRegistry;
  resources: { files: ThreadFileAccess; skills: SkillReader; subAgent?: SubAgentRunner };
  limits: {
    maxIterations: number;
    toolTimeoutMs: number;
    /** Epoch ms after which no more tools run and the model must answer. */
    deadline: number;
    contextWindow: number;
    /** The same call this many times in a run is refused. */
    maxIdenticalCalls?: number;
  };
  now: () => number;
  /** Aborted when someone cancels the answer. */
  signal: AbortSignal;
  /** Stream the answer text as it is written. */
  stream?: boolean;
  onEvent?: (event: AgentEvent) => void;
  recordStep?: (step: RunStepRecord) => void;
  /** Caps one tool result before it enters the context (the context module knows the budget). */
  fitToolResult?: (content: string, call: ToolCall) => string;
  /** A note after each round of tool results: tokens used and left, the refreshed file list. */
  afterToolRound?: (state: { messages: ChatMessage[]; lastInputTokens: number }) => ChatMessage | undefined;
  /** Shortens the request after a context-length error; used once per run. */
  trimForRetry?: (messages: ChatMessage[]) => ChatMessage[];
}

export type StopReason = 'answered' | 'iteration_cap' | 'time_cap' | 'cancelled';

export interface AgentTurnResult {
  answer: string;
  stop: StopReason;
  /** Said to the user beside the answer when a cap was hit. */
  note?: string;
  iterations: number;
  usage: TokenUsage;
  /** Compact lines of what the run read ("F1 p. 3–5", "skill jira"). */
  activity: string[];
  toolCalls: Array<{ name: string; args: unknown; error?: string }>;
}

/**
 * One answer: call the model, run the tools it asks for (in parallel), feed the results back, until it answers.
 * On the last iteration, or past the deadline, the tools are withdrawn so the model must answer with what it has.
 */
export async function runAgentTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
  const messages = [...input.messages];
  const onEvent = input.onEvent ?? (() => {});
  const recordStep = input.recordStep ?? (() => {});
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  const activity: string[] = [];
  const toolCalls: AgentTurnResult['toolCalls'] = [];
  const seenCalls = new Map<string, number>();
  let pendingImages: Array<{ fileId: string; name: string; dataUrl: string }> = [];
  let lastInputTokens = 0;
  let bestText = '';
  let trimmed = false;
  const startedAt = input.now();

  const result = (answer: string, stop: StopReason, iterations: number, note?: string): AgentTurnResult => ({
    answer,
    stop,
    note,
    iterations,
    usage,
    activity,
    toolCalls,
  });

  for (let iteration = 1; ; iteration++) {
    if (input.signal.aborted) return result(bestText, 'cancelled', iteration - 1);
    const outOfTime = input.now() >= input.limits.deadline;
    const final = iteration >= input.limits.maxIterations || outOfTime;

    onEvent({ type: 'thinking', iteration });
    let response: ChatResponse;
    try {
      response = await callModel(final, iteration);
    } catch (error) {
      if (input.signal.aborted) return result(bestText, 'cancelled', iteration);
      if (error instanceof ModelError && error.kind === 'context_length' && !trimmed && input.trimForRetry) {
        trimmed = true;
        messages.splice(0, messages.length, ...input.trimForRetry(messages));
        iteration--;
        continue;
      }
      if (!final && isDeadlineAbort(error)) {
        // The deadline passed while the model was thinking: go round once more, without tools.
        continue;
      }
      throw error;
    }
    if (response.text?.trim()) bestText = response.text.trim();

    if (final || response.toolCalls.length === 0) {
      const answer = response.text?.trim() || bestText;
      if (!final) return result(answer, 'answered', iteration);
      if (outOfTime) {
        const minutes = Math.max(1, Math.round((input.limits.deadline - startedAt) / 60_000));
        return result(answer, 'time_cap', iteration, `I stopped early: this took longer than my ${minutes}-minute limit, so this answer is based on what I had read by then.`);
      }
      const hadToolsLeft = iteration > 1 && toolCalls.length > 0;
      return hadToolsLeft
        ? result(answer, 'iteration_cap', iteration, `I reached my limit of ${input.limits.maxIterations} steps, so this answer is based on what I had read by then.`)
        : result(answer, 'answered', iteration);
    }

    if (input.stream && response.text) onEvent({ type: 'text_discarded' });
    messages.push({ role: 'assistant', content: response.text, toolCalls: response.toolCalls });
    const outcomes = await executeToolCalls({
      calls: response.toolCalls,
      registry: input.registry,
      contextFor: (signal): ToolContext => ({
        files: input.resources.files,
        skills: input.resources.skills,
        subAgent: input.resources.subAgent,
        signal,
        tokensLeft: () => Math.max(0, input.limits.contextWindow - lastInputTokens),
        showImage: (image) => pendingImages.push(image),
        recordActivity: (entry) => activity.push(entry),
      }),
      runSignal: input.signal,
      timeoutMs: input.limits.toolTimeoutMs,
      iteration,
      seenCalls,
      maxIdenticalCalls: input.limits.maxIdenticalCalls ?? 3,
      now: input.now,
      onEvent,
      recordStep,
    });
    for (const outcome of outcomes) {
      toolCalls.push({ name: outcome.call.name, args: outcome.args, error: outcome.error });
      const content = input.fitToolResult ? input.fitToolResult(outcome.content, outcome.call) : outcome.content;
      messages.push({ role: 'tool', toolCallId: outcome.call.id, content });
    }
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
  }

  async function callModel(final: boolean, iteration: number): Promise<ChatResponse> {
    const started = input.now();
    const signals = [input.signal];
    if (!final) signals.push(AbortSignal.timeout(Math.max(1, input.limits.deadline - input.now())));
    try {
      const response = await input.model.complete({
        messages,
        tools: final ? undefined : input.registry.specs(),
        signal: AbortSignal.any(signals),
        onTextDelta: input.stream ? (delta) => onEvent({ type: 'text_delta', delta }) : undefined,
      });
      usage.inputTokens += response.usage.inputTokens;
      usage.outputTokens += response.usage.outputTokens;
      lastInputTokens = response.usage.inputTokens;
      recordStep({
        kind: 'model',
        name: input.model.name,
        iteration,
        inputTokens: response.usage.inputTokens,
        outputTokens: response.usage.outputTokens,
        durationMs: input.now() - started,
      });
      return response;
    } catch (error) {
      recordStep({
        kind: 'model',
        name: input.model.name,
        iteration,
        durationMs: input.now() - started,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  }
}

function isDeadlineAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError' || /abort/i.test(error.message));
}
