/**
 * One run, start to end: read the thread → (sort out an interrupted attempt) → prepare the request → the agent →
 * deliver the answer. Everything outside comes in through the seams (./seams.ts); this only orders the steps and
 * decides what each outcome means for the thread.
 */
import { messageOf } from '../core/errors';
import type { BotIdentity } from '../conversation';
import type { RunObservation, RunObserver } from '../core/run-observer';
import type { Logger } from '../logging/logger';
import type { RunOutcome, RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import { answeredOutcome, answerWithAgent, type AgentDependencies } from './answer-with-agent';
import { describeFailure } from './describe-failure';
import { prepareTurn, type PrepareTurnDependencies } from './prepare-turn';
import { resumeInterruptedRun } from './resume-run';
import { RunInterrupted } from './run-interrupted';
import { parkForApproval } from './park-for-approval';
import { parkForSignIn, signInCalls, signInSteps, type SignInLedger, type SignInPrompter } from './park-for-sign-in';
import { parkedTurnOf } from './parked-turn';
import { observeAttempt } from './observe-run';
import { openRunChannel } from './run-channel';
import { tallyRunCost, type RunCostDependencies } from './run-cost';
import { chooseRunModel, type RunModelDependencies } from './run-model';
import { trackCurrentStep } from './current-step';
import type { OpenAnswerChannel, RunLedger, RunSettingsSource, ThreadSource } from './seams';
import type { Tool } from '../tools';

export interface RunDependencies
  extends AgentDependencies,
    RunModelDependencies,
    RunCostDependencies,
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
  /** Before an attempt builds its tools: per-person servers' tool lists, which another replica's sign-in may have changed. */
  refreshTools?(): Promise<void>;
  /** Per-person sign-in: parking the run until its speaker has connected, and their private Connect prompt (the edge's). */
  signIns?: {
    ledger: SignInLedger & { completed(runId: number): Promise<Array<{ callId: string; server: string; userId: string; at: Date }>> };
    prompt: SignInPrompter;
  };
  /** When `run` answers a scheduled task's occurrence: its request (tasks/occurrence-prompt.ts); else undefined. */
  scheduledRequest?(run: RunRow): Promise<string | undefined>;
  /** Tools only this run is offered (schedule_task: its asker, thread and time zone); none in the terminal. */
  runTools?(thread: ThreadRow, run: RunRow): Promise<Tool[]>;
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
      if (resume && deps.signIns) {
        const connected = (await deps.signIns.ledger.completed(run.id)).filter((done) => resume.turn.calls.some((call) => call.id === done.callId));
        signInSteps(resume.turn, { connected }).forEach(cost.record);
      }
      await deps.refreshTools?.();
      // Per-person servers act as the person this run answers (a scheduled task: its owner), nobody else.
      const speaker = run.triggerUserId ? { teamId: run.teamId ?? thread.teamId, userId: run.triggerUserId } : undefined;
      const toolsFor: typeof agentDeps.toolsFor = (channelId, options) => agentDeps.toolsFor(channelId, { ...options, speaker, runId: run.id });
      const result = await answerWithAgent({ ...agentDeps, toolsFor }, prepared, channel, record, signal, resume, settings, current, await deps.runTools?.(thread, run));
      if (result.stop === 'cancelled') throw signal.reason ?? new RunInterrupted('cancelled');
      if (result.awaiting) {
        const waitingForSignIn = deps.signIns ? signInCalls(result.awaiting) : [];
        if (deps.signIns && waitingForSignIn.length === result.awaiting.calls.length) {
          signInSteps(result.awaiting.turn, { requested: waitingForSignIn }).forEach(cost.record);
          const costs = { ...cost.totals(), iterations: result.iterations };
          return await parkForSignIn({ run, thread, channel, ledger: deps.ledger, signIns: deps.signIns.ledger, prompt: deps.signIns.prompt, costs, logger: log }, result.awaiting);
        }
        // Beside calls waiting for a decision, a call waiting for a sign-in just runs again once they are decided
        // (and asks for the sign-in then): only the decisions are asked for now.
        if (waitingForSignIn.length > 0) result.awaiting = { ...result.awaiting, calls: result.awaiting.calls.filter((call) => !call.signIn) };
        const parking = { run, thread, channel, ledger: deps.ledger, approvalTimeoutMs: deps.settings.approvalTimeoutMs, cost, logger: log };
        return await parkForApproval(parking, { awaiting: result.awaiting, iterations: result.iterations });
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
      await channel.status.clear();
      const reason = signal.reason ?? (error instanceof RunInterrupted ? error : undefined);
      if (reason instanceof RunInterrupted && reason.kind === 'cancelled') {
        const answerTs = await channel.answer.fail('_Stopped: this answer was cancelled._').catch(() => []);
        return { status: 'cancelled', error: 'cancelled by a user', answerTs, ...cost.totals() };
      }
      if (reason instanceof RunInterrupted) throw error; // shutdown or lost lease: the run is resumed elsewhere
      log.error('answer failed', { error });
      await assertStillOwner();
      const answerTs = await channel.answer.fail(describeFailure(error)).catch((postError) => {
        log.error('could not tell the thread about the failure', { error: postError });
        return [] as string[];
      });
      if (answerTs.length) await deps.ledger.recordAnswer(run.id, answerTs).catch(() => {});
      return { status: 'failed', error: messageOf(error), answerTs, ...cost.totals() };
    } finally {
      await current.settled();
      await deps.ledger.recordSteps(run.id, [...cost.steps]).catch((error) => log.warn('could not record run steps', { error }));
    }
  }
}
