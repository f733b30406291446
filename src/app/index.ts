/**
 * The bot: the one composition (compose.ts) with the Slack edge — Bolt and its receiver, the listeners and surfaces,
 * the intake and worker, recorded deliveries, housekeeping and the operator console. main.ts calls it for
 * `npm start`; tests call it with the fakes' URLs, in-process. Everything it opens goes on one stack of closers: a
 * start-up that fails closes what it had opened, and stop() closes the rest the same way, newest first.
 */
import { messageOf } from '../core/errors';
import { randomUUID } from 'node:crypto';
import type { Config } from '../config';
import type { BotIdentity } from '../conversation';
import { createClosers } from '../core/closers';
import { createActivity } from '../core/activity';
import { sleep, systemClock, type Clock } from '../core/clock';
import { createLogger, type Logger } from '../logging/logger';
import { createSlackFileSource } from '../slack/files/slack-file-source';
import type { DatabaseHandle } from '../store/database';
import type { EffectiveChannelSettings } from '../config/channel-settings';
import { wireSlackAnswers, type RecordedDeliveries } from './bot/answer-in-slack';
import { createHealthCheck } from './bot/health';
import { startHousekeeping } from './bot/housekeeping';
import { openSlackApp, startSlackApp } from './bot/slack-app';
import { checkSlackTokens } from './check-slack';
import { checkModelAtStart } from './check-model';
import { preloadEncoding } from '../text/tokenizer';
import { checkPortFree } from './check-port';
import { composeThreadwise, loadMcpServers } from './compose';
import { checkOauthConfig } from '../config/oauth-config';
import { callbackPages } from './sign-in';
import { wireKnowledge } from './bot/knowledge';
import { startOperatorConsole } from './operator-console';
import { StartupError } from './startup-error';


export interface StartOptions {
  logger?: Logger;
  /** Time and every timer on the data path (polls, leases, sweeps, flushes); default the system clock. */
  clock?: Clock;
  /** Identifies this process's leases; default a random id. */
  workerId?: string;
  /**
   * Test-only: the process kills itself (SIGKILL) right after the first recorded delivery's 200, before the app sees
   * it (main.ts sets it from THREADWISE_TEST_KILL_AFTER_ACK=1). Proves that window loses nothing.
   */
  killAfterAckForTests?: boolean;
  /**
   * Test-only: the process kills itself (SIGKILL) inside its first claim of a due task's occurrence — before its run
   * row is written (the claim rolls back) or right after the claim committed (the run waits, unstarted).
   */
  killInTaskClaimForTests?: 'before_run_row' | 'after_run_row';
  /** Overrides RUN_LEASE_SECONDS (tests). */
  leaseMs?: number;
  pollMs?: number;
  /** Runs at once in this process. */
  concurrency?: number;
  /** An already-open database (tests share one). */
  database?: DatabaseHandle;
  /** How often waiting approvals are checked for expiry (tests); default 15 s. */
  approvalSweepMs?: number;
  /** How often housekeeping (dedupe pruning, the retention sweep) runs, and when first after start (tests). */
  housekeepingMs?: number;
  firstHousekeepingMs?: number;
  /** How often an idle task scheduler looks whether tasks changed on another replica (tests); default 30 s. */
  taskCheckEveryMs?: number;
  /** Where mcp.json's ${VAR}s come from; default process.env. */
  env?: Record<string, string | undefined>;
  /** Start-up lines, one per stage, for the person starting it (main.ts: stderr); default the log. */
  say?: (sentence: string, level?: 'warn') => void;
}

export interface RunningThreadwise {
  /** Where Slack sends events: http://host:port/slack/events (HTTP mode). */
  port: number;
  bot: BotIdentity;
  database: DatabaseHandle;
  /** A channel's effective settings as this replica sees them now (its cache included). */
  settingsFor(teamId: string, channelId: string): Promise<EffectiveChannelSettings>;
  /** The operator console's address, when CONSOLE_PORT is set. */
  consoleUrl?: string;
  /** Stops taking work, lets running answers finish within the grace period, closes everything it opened. */
  stop(graceMs?: number): Promise<void>;
  /**
   * Resolves when nothing is happening: no event on its way in or being admitted, no run claimed or running, no
   * post in flight, and no run due that this replica could claim now. What a test waits for before it asserts that
   * something did not happen.
   */
  idle(): Promise<void>;
}

export async function startThreadwise(config: Config, options: StartOptions = {}): Promise<RunningThreadwise> {
  // Read before the logger is made, so header and env values from mcp.json are redacted like the tokens.
  const mcpServers = await loadMcpServers(config, options.env ?? process.env);
  // A server with "auth": "oauth" needs PUBLIC_URL and TOKEN_ENCRYPTION_KEY: one sentence each, before anything opens.
  const signInProblems = checkOauthConfig(config, mcpServers);
  if (signInProblems.length > 0) throw new StartupError(signInProblems.join('; '));
  const logger =
    options.logger ??
    createLogger({
      level: config.logLevel,
      secrets: [config.slack.botToken, config.slack.signingSecret, config.slack.appToken, config.model.apiKey, config.console?.token, ...mcpServers.secrets, config.signIn.tokenKey, config.signIn.previousTokenKey],
      messageText: config.logMessageText,
    });
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  // Every piece of data-path work registers here while in flight: idle() waits for none to be left.
  const activity = createActivity();
  const say = options.say ?? ((sentence: string, level?: 'warn') => (level === 'warn' ? logger.warn(sentence) : logger.debug(sentence)));
  // The quick checks first (ports, Slack, the model): a port in use, a wrong token or URL should not wait for the
  // database to be created or reached.
  await checkPortFree(config.slack.port, 'PORT');
  if (config.console) await checkPortFree(config.console.port, 'CONSOLE_PORT', config.console.host);
  say(`connecting to Slack at ${config.slack.apiUrl}…`);
  const slackChecked = checkSlackTokens({ apiUrl: config.slack.apiUrl, botToken: config.slack.botToken, appToken: config.slack.appToken });
  // At the same time: both are one quick call. When both fail, Slack's failure is the one reported.
  const modelChecked = checkModelAtStart({ baseUrl: config.model.baseUrl, apiKey: config.model.apiKey, model: config.model.name }, { say, now });
  modelChecked.then((health) => slackChecked.catch(() => health.close()), () => {});
  await slackChecked;
  const modelHealth = await modelChecked;
  const closers = createClosers((name, error) => logger.warn(`could not close the ${name}`, { error }));
  /** Set by stop(): how long answers in progress may still take. */
  const shutdown = { graceMs: 0, deadline: 0 };

  closers.add('model check', () => modelHealth.close());
  return closers.closeOnFailure(async () => {
    const slackFiles = { botToken: config.slack.botToken, apiUrl: config.slack.apiUrl };
    const parts = await composeThreadwise(config, {
      closers,
      logger,
      mcpServers,
      database: options.database ?? { where: 'configured', waitMs: config.storage.databaseWaitMs, say },
      modelHealth,
      watchSkills: true,
      fileSource: (db) => (objects) => createSlackFileSource({ db, slack: slackFiles, objects }),
      now,
    });
    const { database } = parts;
    const health = createHealthCheck(database, parts.mcp, logger, modelHealth);
    const replicaId = options.workerId ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
    // Deliveries are journaled from the first event on; what settles them exists once the intake does (below).
    let recorded: RecordedDeliveries | undefined;
    const settleDelivery = (deliveryId: string) => recorded?.onDelivered(deliveryId);
    const slack = await openSlackApp(config, { logger, database, replicaId, health, onDelivered: settleDelivery, activity, killAfterAckForTests: options.killAfterAckForTests, pages: callbackPages(parts.signIn) });
    const { app, bot } = slack;
    // Beyond the thread: the message index, who may read what, memories (issue 27).
    const knowledge = wireKnowledge(config, { app, bot, workspace: slack.workspace, db: database.db, clock, activity, logger, closers });
    const { worker, intake, deliveries, settings, wakeWorker, scheduler } = await wireSlackAnswers(config, {
      composition: parts,
      slack,
      closers,
      logger,
      clock,
      activity,
      replicaId,
      leaseMs: options.leaseMs ?? config.runLeaseMs,
      pollMs: options.pollMs ?? 2_000,
      concurrency: options.concurrency ?? 4,
      mcpServerNames: mcpServers.servers.map((server) => server.name),
      settleDelivery,
      shutdown,
      knowledge,
      taskCheckEveryMs: options.taskCheckEveryMs,
      killInTaskClaimForTests: options.killInTaskClaimForTests,
    });
    recorded = deliveries;

    const port = await startSlackApp(slack, config, health, closers);
    const operatorConsole = await startOperatorConsole(config, {
      database,
      logger,
      mcp: parts.mcp,
      extractor: parts.extractor,
      intake,
      worker,
      now,
      model: modelHealth,
      outputs: { charts: parts.charts, writeXlsx: (result, sheetName) => parts.tableEngine.writeXlsx(result, sheetName) },
    }).catch((error) => {
      throw new StartupError(messageOf(error));
    });
    if (operatorConsole) closers.add('operator console', () => operatorConsole.close());
    worker.start();
    // The recent history of the channels threadwise is in, indexed in the background (tracked; never delays start-up).
    knowledge.backfillInBackground();
    // What a process that died (kill -9, OOM, power cut) had acknowledged but not yet turned into runs.
    await deliveries.start();
    closers.add(
      'housekeeping',
      startHousekeeping(config, {
        db: database.db,
        client: app.client,
        logger,
        clock,
        activity,
        onRunResumable: wakeWorker,
        housekeepingMs: options.housekeepingMs,
        firstHousekeepingMs: options.firstHousekeepingMs,
        approvalSweepMs: options.approvalSweepMs,
        signIn: parts.signIn,
      }),
    );
    logger.info('threadwise is running', { mode: config.slack.mode, port, bot: bot.name, database: database.driver, model: parts.model.name });
    // Scheduled tasks: a timer to the next due one; a missed occurrence (down at its time) is claimed once, late.
    scheduler.start();
    // The tokenizer's table, while nobody is asking yet: not on the first answer's path (tokenizer.ts says why).
    setImmediate(() => preloadEncoding(parts.model.name));

    return {
      port,
      bot,
      database,
      settingsFor: (teamId, channelId) => settings.settingsFor(teamId, channelId),
      consoleUrl: operatorConsole?.url,
      async idle() {
        for (;;) {
          await activity.idle();
          // A delivery the receiver's thread acknowledged is on its way to this thread: a moment, then look again.
          if ((slack.receiver?.pending() ?? 0) > 0) {
            await sleep(systemClock, 5);
            continue;
          }
          // Nothing in flight; is a run due (queued by another replica, a lease run out, an approval decided)?
          if ((await worker.poll()) === 0 && activity.busy() === 0) return;
        }
      },
      async stop(graceMs = config.shutdownGraceMs) {
        shutdown.graceMs = graceMs;
        shutdown.deadline = clock.now() + graceMs;
        await closers.closeAll();
      },
    } satisfies RunningThreadwise;
  });
}
