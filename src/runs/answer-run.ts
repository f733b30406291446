/**
 * One run, start to end: read the thread → (sort out an interrupted attempt) → prepare the request → the agent →
 * deliver the answer. Everything outside comes in through the seams (./seams.ts); this only orders the steps and
 * decides what each outcome means for the thread.
 */
import type { BotIdentity } from '../conversation';
import type { RunObservation, RunObserver } from '../core/run-observer';
import type { Logger } from '../logging/logger';
import type { RunOutcome, RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import { answeredOutcome, answerWithAgent, type AgentDependencies } from './answer-with-agent';
import { endFailedAttempt } from './end-failed-attempt';
import { prepareTurn, type PrepareTurnDependencies } from './prepare-turn';
import { resumeInterruptedRun } from './resume-run';
import { RunInterrupted } from './run-interrupted';
import { parkWaitingCalls, recordConnectedSignIns } from './park-waiting-calls';
import { actingAsSpeaker, type RunSpeakerDependencies } from './run-speaker';
import { parkedTurnOf } from './parked-turn';
import { observeAttempt } from './observe-run';
import { openRunChannel } from './run-channel';
import { tallyRunCost, type RunCostDependencies } from './run-cost';
import { chooseRunModel, type RunModelDependencies } from './run-model';
import { trackCurrentStep } from './current-step';
import type { OpenAnswerChannel, RunLedger, RunSettingsSource, ThreadSource } from './seams';

export interface RunDependencies
  extends AgentDependencies,
    RunModelDependencies,
    RunCostDependencies,
    RunSpeakerDependencies,
    Omit<PrepareTurnDependencies, 'model' | 'contextWindow' | 'skills' | 'timeZone'> {
  bot: BotIdentity;
  threads: ThreadSource;
  answers: OpenAnswerChannel;
  ledger: RunLedger;
  /** The skills offered in the prompt (names and descriptions). */
  skillIndex: PrepareTurnDependencies['skills'];
  /** The channel settings each run follows; absent: the workspace defaults everywhere (the terminal). */
  settingsFor?: RunSettingsSource;
  logger: Logger;
  /** Told about each attempt, its steps and its end (traces). */
  observer?: RunObserver;
  /** When `run` answers a scheduled task's occurrence: its request (tasks/occurrence-prompt.ts); else undefined. */
  scheduledRequest?(run: RunRow): Promise<string | undefined>;
}

type AttemptOutcome = RunOutcome | { status: 'waiting_approval' };

export function createRunExecutor(deps: RunDependencies) {
  const prepareDeps = { ...deps, skills: deps.skillIndex, model: deps.model.name, contextWindow: deps.settings.contextWindow, timeZone: deps.settings.timeZone };
  return async function answerRun(run: RunRow, signal: AbortSignal): Promise<AttemptOutcome> {
    const thread = await deps.ledger.thread(run.threadId);
    if (!thread) return { status: 'failed', error: `thread ${run.threadId} no longer exists` };
    if (run.answerTs.length > 0) return { status: 'done' }; // answered before a crash; only the bookkeeping was lost
    return observeAttempt(deps.observer, { run, thread, model: deps.model.name }, (observation) => attempt(run, thread, signal, observation));
  };

  async function attempt(run: RunRow, thread: ThreadRow, signal: AbortSignal, observation: RunObservation | undefined): Promise<AttemptOutcome> {
    const log = deps.logger.child({ runId: run.id, channel: thread.channelId, threadTs: thread.threadTs });
    const settings = await deps.settingsFor?.(thread, run);
    // The channel's model answers, and its name goes on the run's record.
    const { model, contextWindow, deps: agentDeps } = chooseRunModel(deps, settings);
    const channel = openRunChannel(deps, run, thread, settings);
    const cost = tallyRunCost(model, deps.prices, observation);
    const current = trackCurrentStep(deps.ledger, run, model.name, (error) => log.debug('could not record the current step', { error }));
    const record: typeof cost.record = (step) => {
      cost.record(step);
      current.stepEnded(step);
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
      const scheduled = await deps.scheduledRequest?.(run);
      const prepared = await prepareTurn({ ...prepareDeps, model: model.name, contextWindow }, thread, run, messages, settings, scheduled);
      if ('nothing' in prepared) {
        await channel.status.clear();
        return { status: 'done', error: `nothing to answer: ${prepared.nothing}` };
      }
      const resume = await parkedTurnOf(run, deps, cost.record);
      await recordConnectedSignIns(deps.signIns, run.id, resume, cost.record);
      await deps.refreshTools?.();
      const result = await answerWithAgent(actingAsSpeaker(agentDeps, run, thread), prepared, channel, record, signal, resume, settings, current, await deps.runTools?.(thread, run));
      if (result.stop === 'cancelled') throw signal.reason ?? new RunInterrupted('cancelled');
      if (result.awaiting) {
        const waiting = { run, thread, channel, ledger: deps.ledger, signIns: deps.signIns, approvalTimeoutMs: deps.settings.approvalTimeoutMs, cost, logger: log };
        return await parkWaitingCalls(waiting, { ...result, awaiting: result.awaiting });
      }
      await assertStillOwner();
      const answerTs = await channel.answer.finish(result.answer, { runId: run.id, note: result.note });
      // From here on the answer is out: nothing below may turn it into a failure (a second message in the thread).
      // If this record is lost too, finishing the run records it, and failing that a resumed run finds it in the thread.
      await deps.ledger.recordAnswer(run.id, answerTs).catch((error) => log.warn('could not record the posted answer', { error, answerTs }));
      await channel.status.clear();
      if (prepared.shown.images.length) await prepared.files.describeShown(prepared.shown.images);
      return { status: 'done', ...cost.totals(), ...answeredOutcome(result), answerTs, imagesShown: prepared.shown.images.map((image) => image.name) };
    } catch (error) {
      return await endFailedAttempt({ run, channel, ledger: deps.ledger, signal, cost, assertStillOwner, logger: log }, error);
    } finally {
      await current.settled();
      await deps.ledger.recordSteps(run.id, [...cost.steps]).catch((error) => log.warn('could not record run steps', { error }));
    }
  }
}

