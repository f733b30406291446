/**
 * The agent's part of a run: the loop over the prepared request, its progress shown on the status line and its
 * text streamed into the answer as it is written.
 */
import { runAgentTurn, type AgentTurnResult, type ParkedTurn } from '../agent/run-agent-turn';
import type { ApprovalDecision } from '../core/approval';
import type { RunStepRecord } from '../core/run-step';
import { buildBudgetReport, fitToolResult, retryTokenLimit, toolResultLimit, trimRequestForRetry } from '../context';
import type { SkillReader, Tool, ToolRegistry } from '../tools';
import { withOwnTools } from '../tools/registry';
import { createFileSubAgent } from '../tools/ask-file/file-reader';
import type { PreparedTurn } from './prepare-turn';
import type { EffectiveChannelSettings } from '../config/channel-settings';
import type { AnswerChannel } from './seams';
import { modelOf, type ModelChoice } from './run-model';
import type { CurrentStepTracker } from './current-step';
import type { RunKnowledge } from './seams';
import { withKnowledgeTools } from './run-knowledge';

/** Rotated by Slack's native status while the model thinks. */
const THINKING_MESSAGES = ['Thinking…', 'Weighing what I read…', 'Working out the answer…'];

interface AgentSettings {
  maxIterations: number;
  runTimeoutMs: number;
  toolTimeoutMs: number;
  contextWindow: number;
  stream: boolean;
  /** For the times the model is told (when a call was denied). */
  timeZone: string;
  /** A tool call waiting for approval expires after this. */
  approvalTimeoutMs: number;
}

export interface AgentDependencies extends ModelChoice {
  /**
   * The tools offered in a channel: threadwise's own, and the MCP servers' enabled there (only `mcpServers`, when
   * the channel's settings name some). Per-person servers' tools act as `speaker`, the person the run answers.
   */
  toolsFor(channelId: string, options?: { mcpServers?: readonly string[]; speaker?: { teamId: string; userId: string }; runId?: number }): ToolRegistry;
  skills: SkillReader;
  settings: AgentSettings;
  now: () => number;
  /** Beyond the thread: search_messages, read_channel, remember and forget, bound to the run's asker; absent → none. */
  knowledge?: RunKnowledge;
}

export async function answerWithAgent(
  deps: AgentDependencies,
  prepared: PreparedTurn,
  channel: AnswerChannel,
  recordStep: (step: RunStepRecord) => void,
  signal: AbortSignal,
  resume?: { turn: ParkedTurn; decisions: ReadonlyMap<string, ApprovalDecision> },
  channelSettings?: Pick<EffectiveChannelSettings, 'model' | 'skills' | 'mcpServers'>,
  current?: Pick<CurrentStepTracker, 'onEvent'>,
  /** Tools only this run is offered (schedule_task, as its asker in its thread). */
  runTools?: Tool[],
) {
  const { files, built, budget } = prepared;
  const { settings } = deps;
  const model = modelOf(deps, channelSettings);
  return runAgentTurn({
    model,
    messages: built.messages,
    registry: withKnowledgeTools(withOwnTools(deps.toolsFor(prepared.channelId, { mcpServers: channelSettings?.mcpServers }), runTools ?? []), deps.knowledge, prepared.asker),
    resources: {
      files: files.access,
      skills: offeredSkillReader(deps.skills, channelSettings?.skills),
      subAgent: createFileSubAgent({ model: deps.model, files: files.access, recordStep }),
      tables: files.tables,
      output: channel.output,
    },
    limits: {
      maxIterations: settings.maxIterations,
      toolTimeoutMs: settings.toolTimeoutMs,
      deadline: deps.now() + settings.runTimeoutMs,
      timeLimitMs: settings.runTimeoutMs,
      contextWindow: settings.contextWindow,
    },
    now: deps.now,
    signal,
    stream: settings.stream,
    recordStep,
    onEvent: (event) => {
      current?.onEvent(event);
      if (event.type === 'thinking') void channel.status.set('Thinking…', THINKING_MESSAGES);
      else if (event.type === 'tools_started') void channel.status.set(event.calls.map((call) => call.progress).join(' · '));
      else if (event.type === 'model_retry') void channel.status.set(`${event.reason === 'unreachable' ? 'I can’t reach the AI model' : 'The AI model is busy'} — trying again in ${Math.max(1, Math.round(event.delayMs / 1000))} s…`);
      else if (event.type === 'text_delta') channel.answer.append(event.delta);
      else if (event.type === 'text_break') channel.answer.breakParagraph();
      else if (event.type === 'text_reset') channel.answer.discardSinceBreak();
    },
    fitToolResult: (content) => fitToolResult(content, toolResultLimit(settings.contextWindow), undefined, model.name),
    afterToolRound: ({ messages: current }) => buildBudgetReport({ messages: current, files: files.access.list(), budget, model: model.name }).message,
    trimForRetry: (current, refusal) => trimRequestForRetry(current, { ...refusal, maxTokens: retryTokenLimit(budget), model: model.name }).messages,
    resume: resume?.turn,
    decisions: resume?.decisions,
    timeZone: settings.timeZone,
  });
}


/** load_skill reads only the skills the channel offers; asking for another says so instead of reading it. */
function offeredSkillReader(reader: SkillReader, offered: readonly string[] | undefined): SkillReader {
  if (!offered) return reader;
  return {
    read: async (nameOrPath) => {
      const name = nameOrPath.split('/')[0]!;
      if (!offered.includes(name)) {
        throw new Error(`The skill "${name}" is not offered in this channel (its settings offer: ${offered.join(', ') || 'none'}).`);
      }
      return reader.read(nameOrPath);
    },
  };
}

/** What the run's record keeps of an answer, beside its cost and where it was posted. */
export function answeredOutcome(result: AgentTurnResult) {
  return {
    iterations: result.iterations,
    skillsLoaded: skillsLoadedBy(result.toolCalls),
    activity: result.activity.length ? result.activity.join('; ') : undefined,
    answer: result.note ? `${result.answer}\n\n_${result.note}_` : result.answer,
    error: result.stop === 'answered' ? undefined : result.stop,
  };
}

/** The skills a run loaded, by name, for the run's record. */
function skillsLoadedBy(calls: Array<{ name: string; args: unknown; error?: string }>): string[] {
  const names = calls
    .filter((call) => call.name === 'load_skill' && !call.error)
    .map((call) => String((call.args as { name?: string } | undefined)?.name ?? '').split('/')[0]!)
    .filter(Boolean);
  return [...new Set(names)];
}
