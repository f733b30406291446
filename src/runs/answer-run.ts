import type { WebClient } from '@slack/web-api';
import type { ChatModel } from '../core/chat';
import { runAgentTurn } from '../agent/run-agent-turn';
import { summarizeRunSteps, type RunStepRecord } from '../core/run-step';
import type { BotIdentity, SlackMessage } from '../conversation';
import { buildBudgetReport, fitToolResult } from '../context';
import { trimRequestForRetry } from '../context/trim-request-for-retry';
import type { ThreadFile } from '../core/thread-file';
import type { Logger } from '../logging/logger';
import type { SkillLibrary } from '../skills';
import { createAnswerWriter } from '../slack/answer-writer';
import { describeFailure } from './describe-failure';
import { createStatusIndicator } from '../slack/status-indicator';
import type { ChannelDetails } from '../slack/thread-reader';
import { readThreadMessages } from '../slack/thread-reader';
import type { Database } from '../store/db';
import {
  clearDraftMessages,
  insertRunSteps,
  mayPostAnswer,
  recordAnswerPosted,
  recordDraftMessage,
  recordStatusMessage,
  type RunOutcome,
  type RunRow,
} from '../store/run-store';
import { getThreadById } from '../store/thread-store';
import type { ToolRegistry } from '../tools/registry';
import type { SubAgentRunner, ThreadFileAccess } from '../tools/tool';
import { RunInterrupted } from './run-worker';
import { prepareTurn } from './prepare-turn';
import { findPostedAnswer } from './find-posted-answer';
import { retireDraftAnswer } from './retire-draft-answer';
import { STATUS_EVENT } from '../conversation';
import type { CurrentImage } from '../context';

/** What a run needs from files/: the registry, per-thread access, preloads and the images to show. */
export interface ThreadFilesService {
  register(threadId: number, messages: SlackMessage[], names: ReadonlyMap<string, string>): Promise<ThreadFile[]>;
  access(threadId: number, files: ThreadFile[]): ThreadFileAccess;
  preloads(access: ThreadFileAccess, files: ThreadFile[]): Promise<Map<string, string>>;
  /** Images to attach to the current turn, and notes for those not shown. */
  currentImages?(access: ThreadFileAccess, fileIds: string[]): Promise<{ images: CurrentImage[]; notes: string[] }>;
  /** After the answer: describe the images shown, once, so later turns get words instead of pixels. */
  describeImages?(access: ThreadFileAccess, images: CurrentImage[]): Promise<void>;
}

export interface AnswerRunDependencies {
  db: Database;
  slack: WebClient;
  bot: BotIdentity;
  /** `strategy()` (function_calling or react) is recorded on the run when the model can say. */
  model: ChatModel & { strategy?(): string };
  registry: ToolRegistry;
  skills: SkillLibrary;
  files: ThreadFilesService;
  names: (userIds: string[]) => Promise<Map<string, string>>;
  channel: (channelId: string) => Promise<ChannelDetails>;
  subAgent?: (access: ThreadFileAccess, recordStep: (step: RunStepRecord) => void) => SubAgentRunner;
  settings: {
    maxIterations: number;
    runTimeoutMs: number;
    toolTimeoutMs: number;
    contextWindow: number;
    timeZone: string;
    stream: boolean;
  };
  now: () => number;
  logger: Logger;
}

const RESUMING_NOTE = '_I was interrupted while answering — picking this up again now._';
/** Rotated by Slack's native status while the model thinks. */
const THINKING_MESSAGES = ['Thinking…', 'Weighing what I read…', 'Working out the answer…'];
/** A run interrupted this often (crash, kill, lost lease) is likely what kills the process: stop trying. */
const MAX_ATTEMPTS = 3;

/** Produces the answer for one run: read the thread, build the request, run the agent, post into the thread. */
export function createRunExecutor(deps: AnswerRunDependencies) {
  return async function answerRun(run: RunRow, signal: AbortSignal): Promise<RunOutcome> {
    const thread = await getThreadById(deps.db, run.threadId);
    if (!thread) return { status: 'failed', error: `thread ${run.threadId} no longer exists` };
    if (run.answerTs.length > 0) return { status: 'done' }; // answered before a crash; only the bookkeeping was lost
    const log = deps.logger.child({ runId: run.id, channel: thread.channelId, threadTs: thread.threadTs });
    const status = createStatusIndicator(
      deps.slack,
      { channel: thread.channelId, threadTs: thread.threadTs, triggerTs: run.triggerTs },
      // The fallback status message is recorded on the run, so a :x: on it cancels like one on the question.
      { logger: log, runId: run.id, onStatusMessage: (ts) => recordStatusMessage(deps.db, run.id, ts) },
    );
    const writer = createAnswerWriter(
      deps.slack,
      {
        channel: thread.channelId,
        threadTs: thread.threadTs,
        recipientUserId: run.triggerUserId ?? undefined,
        recipientTeamId: run.teamId || thread.teamId || undefined,
      },
      {
        stream: deps.settings.stream,
        logger: log,
        onMessage: async (ts) => {
          await recordDraftMessage(deps.db, run.id, ts);
          log.debug('the answer started a message', { ts });
        },
      },
    );
    const steps: RunStepRecord[] = [];
    // What the run cost, sub-agent steps included, on every outcome: a failed or cancelled run was paid for too.
    const costs = () => {
      const totals = summarizeRunSteps(steps);
      return { model: deps.model.name, strategy: deps.model.strategy?.(), inputTokens: totals.inputTokens, outputTokens: totals.outputTokens };
    };
    // Nothing goes into the thread unless this worker still holds the run: one that stalled past its lease must
    // not post beside the worker that took over.
    const assertStillOwner = async () => {
      if (!(await mayPostAnswer(deps.db, run.id, run.leaseOwner ?? ''))) throw new RunInterrupted('lease_lost');
    };

    try {
      await status.set('Reading the thread…');
      let messages = await readThreadMessages(deps.slack, thread.channelId, thread.threadTs);
      if (run.attempts > 1) {
        // Died after posting but before recording it: the answer is in the thread, so only the record is missing.
        const posted = findPostedAnswer(messages, run.id, deps.bot);
        if (posted.length > 0) {
          await recordAnswerPosted(deps.db, run.id, posted);
          await status.clear();
          log.info('the answer was already posted before the interruption; not posting again', { answerTs: posted });
          return { status: 'done', answerTs: posted };
        }
        // Half an answer from the attempt that died: retired (it becomes the resuming note, or goes when the run
        // gives up), and never read back as something said.
        const drafts = run.draftTs.filter((ts) => messages.some((message) => message.ts === ts));
        messages = messages.filter((message) => !drafts.includes(message.ts));
        const givingUp = run.attempts > MAX_ATTEMPTS;
        const note = givingUp ? undefined : { text: RESUMING_NOTE, metadata: { event_type: STATUS_EVENT, event_payload: { run_id: run.id } } };
        await assertStillOwner();
        const noted = await retireDraftAnswer(deps.slack, thread.channelId, drafts, note, log);
        if (run.draftTs.length > 0) await clearDraftMessages(deps.db, run.id);
        if (givingUp) {
          await status.clear();
          const ts = await writer
            .fail(`Sorry — I was interrupted ${run.attempts - 1} times while answering this, so I’ve stopped trying. Please ask again; if it keeps happening, tell the team that runs me.`)
            .catch(() => [] as string[]);
          return { status: 'failed', error: `gave up after ${run.attempts - 1} interrupted attempts`, answerTs: ts };
        }
        if (note && !noted) {
          await deps.slack.chat
            .postMessage({ channel: thread.channelId, thread_ts: thread.threadTs, ...note })
            .catch((error) => log.warn('could not post the resuming note', { error }));
        }
      }
      const prepared = await prepareTurn(deps, thread, run, messages);
      if ('nothing' in prepared) {
        await status.clear();
        return { status: 'done', error: `nothing to answer: ${prepared.nothing}` };
      }
      const { access, built, budget, shown } = prepared;

      const recordStep = (step: RunStepRecord) => steps.push(step);
      const result = await runAgentTurn({
        model: deps.model,
        messages: built.messages,
        registry: deps.registry,
        resources: { files: access, skills: deps.skills, subAgent: deps.subAgent?.(access, recordStep) },
        limits: {
          maxIterations: deps.settings.maxIterations,
          toolTimeoutMs: deps.settings.toolTimeoutMs,
          deadline: deps.now() + deps.settings.runTimeoutMs,
          timeLimitMs: deps.settings.runTimeoutMs,
          contextWindow: deps.settings.contextWindow,
        },
        now: deps.now,
        signal,
        stream: deps.settings.stream,
        recordStep,
        onEvent: (event) => {
          if (event.type === 'thinking') void status.set('Thinking…', THINKING_MESSAGES);
          else if (event.type === 'tools_started') void status.set(event.calls.map((call) => call.progress).join(' · '));
          else if (event.type === 'model_retry') void status.set(`The AI model is busy — trying again in ${Math.max(1, Math.round(event.delayMs / 1000))} s…`);
          else if (event.type === 'text_delta') writer.append(event.delta);
          else if (event.type === 'text_break') writer.breakParagraph();
          else if (event.type === 'text_reset') writer.discardSinceBreak();
        },
        // One tool result may take an eighth of the window; the file tools page on their own well below that.
        fitToolResult: (content) => fitToolResult(content, Math.max(2_000, Math.floor(deps.settings.contextWindow / 8)), undefined, deps.model.name),
        afterToolRound: ({ messages: current }) =>
          buildBudgetReport({ messages: current, files: access.list(), budget, model: deps.model.name }).message,
        // The endpoint counted more than we did: aim well under the window on the one retry.
        trimForRetry: (current, refusal) =>
          trimRequestForRetry(current, { ...refusal, maxTokens: Math.floor((budget.contextWindow - budget.reserveForAnswer) * 0.7), model: deps.model.name }).messages,
      });

      if (result.stop === 'cancelled') throw signal.reason ?? new RunInterrupted('cancelled');
      await assertStillOwner();
      const answerTs = await writer.finish(result.answer, { runId: run.id, note: result.note });
      // From here on the answer is out: nothing below may turn it into a failure (a second message in the thread).
      // If this record is lost too, finishing the run records it, and failing that a resumed run finds it in the thread.
      await recordAnswerPosted(deps.db, run.id, answerTs).catch((error) => log.warn('could not record the posted answer', { error, answerTs }));
      await status.clear();
      if (shown.images.length) {
        await deps.files.describeImages?.(access, shown.images)?.catch((error) => log.warn('could not describe the images shown', { error }));
      }
      return {
        status: 'done',
        ...costs(),
        iterations: result.iterations,
        skillsLoaded: skillsLoadedBy(result.toolCalls),
        activity: result.activity.length ? result.activity.join('; ') : undefined,
        answerTs,
        error: result.stop === 'answered' ? undefined : result.stop,
      };
    } catch (error) {
      await status.clear();
      const reason = signal.reason ?? (error instanceof RunInterrupted ? error : undefined);
      if (reason instanceof RunInterrupted && reason.kind === 'cancelled') {
        const ts = await writer.fail('_Stopped: this answer was cancelled._').catch(() => []);
        return { status: 'cancelled', error: 'cancelled by a user', answerTs: ts, ...costs() };
      }
      if (reason instanceof RunInterrupted) throw error; // shutdown or lost lease: the run is resumed elsewhere
      log.error('answer failed', { error });
      await assertStillOwner();
      const ts = await writer.fail(describeFailure(error)).catch((postError) => {
        log.error('could not tell the thread about the failure', { error: postError });
        return [] as string[];
      });
      if (ts.length) await recordAnswerPosted(deps.db, run.id, ts).catch(() => {});
      return { status: 'failed', error: error instanceof Error ? error.message : String(error), answerTs: ts, ...costs() };
    } finally {
      await insertRunSteps(deps.db, run.id, steps).catch((error) => log.warn('could not record run steps', { error }));
    }
  };
}

function skillsLoadedBy(calls: Array<{ name: string; args: unknown; error?: string }>): string[] {
  const names = calls
    .filter((call) => call.name === 'load_skill' && !call.error)
    .map((call) => String((call.args as { name?: string } | undefined)?.name ?? '').split('/')[0]!)
    .filter(Boolean);
  return [...new Set(names)];
}
