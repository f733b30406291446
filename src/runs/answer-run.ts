/**
 * One run, start to end: read the thread → (sort out an interrupted attempt) → prepare the request → the agent →
 * deliver the answer. Everything outside comes in through the seams (./seams.ts); this only orders the steps and
 * decides what each outcome means for the thread.
 */
import type { BotIdentity } from '../conversation';
import { summarizeRunSteps, type RunStepRecord } from '../core/run-step';
import { messageOf } from '../core/errors';
import { costOfTokens, type ModelPrices } from '../core/model-prices';
import type { RunObservation, RunObserver } from '../core/run-observer';
import type { Logger } from '../logging/logger';
import type { RunOutcome, RunRow } from '../store/run-store';
import { answerWithAgent, modelOf, skillsLoadedBy, type AgentDependencies } from './answer-with-agent';
import { describeFailure } from './describe-failure';
import { prepareTurn, type PrepareTurnDependencies } from './prepare-turn';
import { resumeInterruptedRun } from './resume-run';
import { RunInterrupted } from './run-interrupted';
import { parkForApproval } from './park-for-approval';
import { approvalSteps, parkedTurnOf } from './parked-turn';
import type { OpenAnswerChannel, RunLedger, RunSettingsSource, ThreadSource } from './seams';

export interface RunDependencies extends AgentDependencies, Omit<PrepareTurnDependencies, 'model' | 'contextWindow' | 'skills' | 'timeZone'> {
  bot: BotIdentity;
  threads: ThreadSource;
  answers: OpenAnswerChannel;
  ledger: RunLedger;
  /** The skills offered in the prompt (names and descriptions). */
  skillIndex: PrepareTurnDependencies['skills'];
  /** The channel settings each run follows; absent: the workspace defaults everywhere (the terminal). */
  settingsFor?: RunSettingsSource;
  /** The context window of a model a channel chose instead of the workspace's (CONTEXT_WINDOW applies to that one). */
  contextWindowOf?: (model: string) => number;
  logger: Logger;
  /** MODEL_PRICES: what the run's tokens cost, recorded on the run (the daily limits sum it). */
  prices?: ModelPrices;
  /** Told about each attempt, its steps and its end (traces). */
  observer?: RunObserver;
}

type AttemptOutcome = RunOutcome | { status: 'waiting_approval' };

export function createRunExecutor(deps: RunDependencies) {
  const prepareDeps = { ...deps, skills: deps.skillIndex, model: deps.model.name, contextWindow: deps.settings.contextWindow, timeZone: deps.settings.timeZone };
  return async function answerRun(run: RunRow, signal: AbortSignal): Promise<AttemptOutcome> {
    const thread = await deps.ledger.thread(run.threadId);
    if (!thread) return { status: 'failed', error: `thread ${run.threadId} no longer exists` };
    if (run.answerTs.length > 0) return { status: 'done' }; // answered before a crash; only the bookkeeping was lost
    const observation = deps.observer?.runStarted({
      runId: run.id,
      threadId: run.threadId,
      channelId: thread.channelId,
      threadTs: thread.threadTs,
      userId: run.triggerUserId ?? undefined,
      model: deps.model.name,
      attempt: run.attempts,
      question: run.question ?? undefined,
    });
    try {
      const outcome = await attempt(run, thread, signal, observation);
      observation?.finished({ ...outcome, status: outcome.status });
      return outcome;
    } catch (error) {
      observation?.finished({ status: 'interrupted', error: messageOf(error) });
      throw error;
    }
  };

  async function attempt(
    run: RunRow,
    thread: NonNullable<Awaited<ReturnType<RunLedger['thread']>>>,
    signal: AbortSignal,
    observation: RunObservation | undefined,
  ): Promise<AttemptOutcome> {
    const log = deps.logger.child({ runId: run.id, channel: thread.channelId, threadTs: thread.threadTs });
    const settings = await deps.settingsFor?.(thread, run);
    // The channel's model answers, and its name goes on the run's record.
    const model = modelOf(deps, settings);
    const contextWindow = model === deps.model ? deps.settings.contextWindow : (deps.contextWindowOf?.(model.name) ?? deps.settings.contextWindow);
    const agentDeps = contextWindow === deps.settings.contextWindow ? deps : { ...deps, settings: { ...deps.settings, contextWindow } };
    const channel = deps.answers(
      {
        runId: run.id,
        alsoToChannel: settings?.answerVisibility === 'thread_and_channel',
        channelId: thread.channelId,
        threadTs: thread.threadTs,
        triggerTs: run.triggerTs,
        recipientUserId: run.triggerUserId ?? undefined,
        recipientTeamId: run.teamId || thread.teamId || undefined,
      },
      {
        onStatusMessage: (ts) => deps.ledger.recordStatusMessage(run.id, ts),
        onAnswerMessage: (ts) => deps.ledger.recordDraft(run.id, ts),
      },
    );
    const steps: RunStepRecord[] = [];
    const recordStep = (step: RunStepRecord) => {
      steps.push(step);
      observation?.step(step);
    };
    // What the run cost, sub-agent steps included, on every outcome: a failed or cancelled run was paid for too.
    const totals = () => {
      const summed = summarizeRunSteps(steps);
      const costUsd = steps.reduce(
        (total, step) => (step.kind === 'model' || step.kind === 'subagent_model') && deps.prices ? total + costOfTokens(deps.prices, step.name, step.inputTokens ?? 0, step.outputTokens ?? 0) : total,
        0,
      );
      return { model: model.name, strategy: model.strategy?.(), inputTokens: summed.inputTokens, outputTokens: summed.outputTokens, costUsd };
    };
    // Nothing goes into the thread unless this worker still holds the run.
    const assertStillOwner = async () => {
      if (!(await deps.ledger.mayPost(run.id, run.leaseOwner ?? ''))) throw new RunInterrupted('lease_lost');
    };

    try {
      await channel.status.set('Reading the thread…');
      let messages = await deps.threads.messages(thread.channelId, thread.threadTs);
      if (run.attempts > 1) {
        const resumed = await resumeInterruptedRun({ run, bot: deps.bot, channel, ledger: deps.ledger, assertStillOwner, logger: log }, messages);
        if ('outcome' in resumed) return resumed.outcome;
        messages = resumed.messages;
      }
      const prepared = await prepareTurn({ ...prepareDeps, model: model.name, contextWindow }, thread, run, messages, settings);
      if ('nothing' in prepared) {
        await channel.status.clear();
        return { status: 'done', error: `nothing to answer: ${prepared.nothing}` };
      }
      const resume = await parkedTurnOf(run, deps);
      if (resume) approvalSteps(resume.turn, { decided: resume.decisions }).forEach(recordStep);
      const result = await answerWithAgent(agentDeps, prepared, channel, recordStep, signal, resume, settings);
      if (result.stop === 'cancelled') throw signal.reason ?? new RunInterrupted('cancelled');
      if (result.awaiting) {
        approvalSteps(result.awaiting.turn, { requested: result.awaiting.calls }).forEach(recordStep);
        const costs = { ...totals(), iterations: result.iterations };
        return await parkForApproval({ run, thread, channel, ledger: deps.ledger, approvalTimeoutMs: deps.settings.approvalTimeoutMs, costs, logger: log }, result.awaiting);
      }
      await assertStillOwner();
      const answerTs = await channel.answer.finish(result.answer, { runId: run.id, note: result.note });
      // From here on the answer is out: nothing below may turn it into a failure (a second message in the thread).
      // If this record is lost too, finishing the run records it, and failing that a resumed run finds it in the thread.
      await deps.ledger.recordAnswer(run.id, answerTs).catch((error) => log.warn('could not record the posted answer', { error, answerTs }));
      await channel.status.clear();
      if (prepared.shown.images.length) await prepared.files.describeShown(prepared.shown.images);
      return {
        status: 'done',
        ...totals(),
        iterations: result.iterations,
        skillsLoaded: skillsLoadedBy(result.toolCalls),
        activity: result.activity.length ? result.activity.join('; ') : undefined,
        answerTs,
        answer: result.note ? `${result.answer}\n\n_${result.note}_` : result.answer,
        imagesShown: prepared.shown.images.map((image) => image.name),
        error: result.stop === 'answered' ? undefined : result.stop,
      };
    } catch (error) {
      await channel.status.clear();
      const reason = signal.reason ?? (error instanceof RunInterrupted ? error : undefined);
      if (reason instanceof RunInterrupted && reason.kind === 'cancelled') {
        const answerTs = await channel.answer.fail('_Stopped: this answer was cancelled._').catch(() => []);
        return { status: 'cancelled', error: 'cancelled by a user', answerTs, ...totals() };
      }
      if (reason instanceof RunInterrupted) throw error; // shutdown or lost lease: the run is resumed elsewhere
      log.error('answer failed', { error });
      await assertStillOwner();
      const answerTs = await channel.answer.fail(describeFailure(error)).catch((postError) => {
        log.error('could not tell the thread about the failure', { error: postError });
        return [] as string[];
      });
      if (answerTs.length) await deps.ledger.recordAnswer(run.id, answerTs).catch(() => {});
      return { status: 'failed', error: messageOf(error), answerTs, ...totals() };
    } finally {
      await deps.ledger.recordSteps(run.id, steps).catch((error) => log.warn('could not record run steps', { error }));
    }
  }
}
