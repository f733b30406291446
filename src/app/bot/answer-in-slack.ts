/**
 * How a question in Slack becomes an answer in its thread, wired on the composition: the run over Slack's thread
 * and answer channel and the channel's settings; the intake and worker; every surface a person uses; and the
 * recorded deliveries that replay what a dead process had acknowledged. Each stoppable part goes on the closers.
 */
import type { Config } from '../../config';
import type { Activity } from '../../core/activity';
import type { Clock } from '../../core/clock';
import type { Closers } from '../../core/closers';
import type { Logger } from '../../logging/logger';
import { createSlackAnswerChannels } from '../../slack/answer-channel';
import { recoverQuestions } from '../../slack/ask-on-behalf';
import { createFilePrefetch } from '../../slack/prefetch-thread-files';
import { createRefusalNotice } from '../../slack/refusal-notice';
import { createConnectPrompter } from '../../slack/connect-prompt';
import { createSlackThreadSource } from '../../slack/thread-reader';
import type { Composition } from '../compose';
import { createRecordedDeliveries } from '../recorded-deliveries';
import { createBotChannelSettings } from './channel-settings';
import { createRunQueue } from './run-queue';
import type { SlackApp } from './slack-app';
import { registerSlackSurfaces } from './slack-surfaces';
import type { BotKnowledge } from './knowledge';
import { wireScheduledTasks } from './scheduled-tasks';

export type RecordedDeliveries = ReturnType<typeof createRecordedDeliveries>;

export interface AnswerWiring {
  composition: Composition;
  slack: SlackApp;
  closers: Closers;
  logger: Logger;
  clock: Clock;
  /** Data-path work in flight, for idle(). */
  activity: Activity;
  replicaId: string;
  leaseMs: number;
  pollMs: number;
  concurrency: number;
  mcpServerNames: readonly string[];
  /** Settles a journaled delivery once it is handled (the receiver was made before the deliveries were). */
  settleDelivery: (deliveryId: string) => void;
  /** Tests: how often an idle task scheduler looks at the tasks' version counter (default 30 s). */
  taskCheckEveryMs?: number;
  killInTaskClaimForTests?: 'before_run_row' | 'after_run_row';
  /** Set by stop(): what is left of the grace period, and all of it. */
  shutdown: { graceMs: number; deadline: number };
  /** Beyond the thread: memories and knowledge tools for the runs, the index's listeners, App Home's memories. */
  knowledge: BotKnowledge;
}

export async function wireSlackAnswers(config: Config, wiring: AnswerWiring) {
  const { composition, slack, closers, logger, clock, activity, replicaId, leaseMs, shutdown } = wiring;
  const now = () => clock.now();
  const { app, receiver, bot } = slack;
  const db = composition.database.db;
  const threads = createSlackThreadSource(app.client);
  const settings = createBotChannelSettings(config, { db, skills: composition.skills, mcpServers: wiring.mcpServerNames, logger, now });
  // Scheduled tasks: the worker that answers an occurrence's run is made below, hence the late-bound wake.
  const tasks = wireScheduledTasks(config, { db, client: app.client, membership: wiring.knowledge.directory.membership, clock, logger, activity, replicaId, wakeWorker: () => worker.wake(), checkEveryMs: wiring.taskCheckEveryMs, claimConcurrency: composition.database.driver === 'pglite' ? 1 : 4, killInClaimForTests: wiring.killInTaskClaimForTests });
  const execute = tasks.wrapExecute(composition.createExecutor({
    bot,
    threads,
    answers: createSlackAnswerChannels(app.client, { logger, stream: true, timeZone: config.timeZone, nameOf: threads.knownName, clock }),
    settingsFor: settings.forRun,
    // Per-person sign-in: the Connect prompt goes privately to the person the run answers.
    signInPrompt: composition.signIn ? createConnectPrompter(app.client) : undefined,
    knowledge: wiring.knowledge?.run,

    scheduledRequest: tasks.scheduledRequest,
    runTools: tasks.runTools,
  }));
  const { worker, intake } = createRunQueue(config, {
    db,
    logger,
    replicaId,
    leaseMs,
    pollMs: wiring.pollMs,
    concurrency: wiring.concurrency,
    execute,
    clock,
    activity,
    tellRefusal: createRefusalNotice(app.client),
    prefetchFiles: createFilePrefetch({ threads, files: composition.files, logger, activity }),
    settleDelivery: wiring.settleDelivery,
  });
  closers.add('run worker', () => worker.stop(Math.max(0, shutdown.deadline - clock.now())));
  // Closed before the worker (closers go newest first) and the database: no claim is under way when they go.
  closers.add('task scheduler', () => tasks.scheduler.stop());
  const wakeWorker = () => worker.wake();
  const listeners = registerSlackSurfaces(app, config, { db, intake, bot, settings, skills: composition.skills, toolsFor: composition.toolsFor, logger, replicaId, now, onRunResumable: wakeWorker, signIn: composition.signIn, knowledge: wiring.knowledge, clock, onTaskChanged: () => tasks.scheduler.refresh() });
  if (composition.signIn) composition.signIn.onRunResumable.current = wakeWorker;
  const deliveries = createRecordedDeliveries({
    db,
    replicaId,
    leaseMs,
    logger,
    tookDelivery: (deliveryId) => intake.tookDelivery(deliveryId),
    replay: receiver ? (pending) => receiver.replay(pending) : undefined,
    recoverQuestions: (questions) => recoverQuestions(app.client, listeners, questions),
    clock,
    activity,
  });
  // Before anything is recorded under this replica's id: a replica with no heartbeat looks dead to the others.
  await deliveries.register();
  closers.add('recorded deliveries', () => deliveries.stop());
  closers.add('intake', async () => {
    // Messages already acknowledged get the grace period to reach the database (it may be down right now).
    const lost = await intake.drain(shutdown.graceMs);
    if (lost > 0) logger.warn('stopped with acknowledged messages not yet runs; their recorded deliveries are replayed by the next start', { lost });
  });
  return { worker, intake, deliveries, settings, wakeWorker, scheduler: tasks.scheduler };
}
