/**
 * Builds and starts threadwise from a validated Config: the one place real clients are made. main.ts calls it for
 * `npm start`; tests call it with the fakes' URLs, in-process.
 */
import { agentSettings } from './agent-settings';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import { App } from '@slack/bolt';
import type { Config } from '../config';
import { createChatModel } from './create-chat-model';
import type { BotIdentity } from '../conversation';
import { createLogger, type Logger } from '../logging/logger';
import { createIntake } from '../runs/intake';
import { createRunExecutor } from '../runs/answer-run';
import { createRunWorker } from '../runs/run-worker';
import { loadSkillLibrary } from '../skills';
import { toBoltLogger } from './bolt-logger';
import { createThreadedHttpReceiver, type HealthReport, type ThreadedHttpReceiver } from '../slack/receiver/threaded-http-receiver';
import { registerListeners, type ListenerDependencies } from '../slack/listeners';
import { recoverQuestions } from '../slack/ask-on-behalf';
import { RECORD_DELIVERIES_SQL } from '../store/delivery-store';
import { createRecordedDeliveries, moveLeftoverJournal } from './recorded-deliveries';
import { validatePayloadsAtTheEdge } from './validated-payloads';
import { sweepExpiredContent } from '../store/retention';
import { createSlackThreadSource } from '../slack/thread-reader';
import { createSlackAnswerChannels } from '../slack/answer-channel';
import { createRunLedger } from '../store/run-ledger';
import type { DatabaseHandle } from '../store/database';
import { openDatabaseWhenReachable } from './database/wait-for-database';
import { checkSlackTokens } from './check-slack';
import { pruneDedupeRecords } from '../store/event-store';
import { createThreadFiles } from '../files/thread-files';
import { createSlackFileSource } from '../slack/files/slack-file-source';
import { createFileSearch } from './file-search';
import { createDocumentExtractor, resolveOcrSettings } from '../documents';
import { builtInTools } from '../tools';
import { createChannelTools, describeChannelTools } from './channel-tools';
import { createMcpHub, loadMcpConfig } from '../mcp';
import { expireWaitingApprovals, registerApprovalActions } from '../slack/approval-actions';
import { countTokens } from '../context';
import { raceWithSignal } from '../core/abort';
import { StartupError } from './startup-error';
import { defaultChannelSettings, effectiveChannelSettings, type EffectiveChannelSettings, type SettingsChoices } from '../config/channel-settings';
import { createChannelSettingsResolver } from '../store/channel-settings-store';
import { userChannelContext } from '../store/user-context-store';
import type { RunSettingsSource } from '../runs/seams';
import { registerSettingsSubmission, settingsCommand, type ViewHost } from '../slack/settings-surface';
import { registerReactionTriggers } from '../slack/reaction-triggers';
import { registerAskShortcuts, type ShortcutHost } from '../slack/ask-shortcuts';
import { registerAgentView } from '../slack/agent-view';
import { registerAppHome } from '../slack/app-home';
import type { ConfiguredChatModel } from './create-chat-model';
import { contextWindowFor } from '../config/models';
import { startOperatorConsole } from './operator-console';
import { createTracing } from './tracing/otel-run-observer';
import { every, sleep, systemClock, type Clock } from '../core/clock';
import { createActivity } from '../core/activity';

export { StartupError };

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
  /** Where mcp.json's ${VAR}s come from; default process.env. */
  env?: Record<string, string | undefined>;
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
  const mcpConfig = await loadMcpConfig({ path: config.mcpConfigPath, env: options.env ?? process.env });
  if (!mcpConfig.ok) throw new StartupError(mcpConfig.problems.join('; '));
  const logger =
    options.logger ??
    createLogger({
      level: config.logLevel,
      secrets: [config.slack.botToken, config.slack.signingSecret, config.slack.appToken, config.model.apiKey, config.console?.token, ...mcpConfig.config.secrets],
      messageText: config.logMessageText,
    });
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  // Every piece of data-path work registers here while in flight: idle() waits for none to be left.
  const activity = createActivity();
  // Slack first: it is one quick call, and a wrong token or URL should not wait for the database to be reached.
  await checkSlackTokens({ apiUrl: config.slack.apiUrl, botToken: config.slack.botToken, appToken: config.slack.appToken });
  const skills = await loadSkillLibrary(config.skillsDir, { watch: true, onWarning: (message) => logger.warn(message) });
  let database: DatabaseHandle;
  try {
    database =
      options.database ??
      (await openDatabaseWhenReachable(
        config.storage.databaseUrl ? { driver: 'postgres', url: config.storage.databaseUrl } : { driver: 'pglite', dataDir: config.storage.dataDir },
        logger,
        config.storage.databaseWaitMs,
      ));
  } catch (error) {
    skills.close();
    throw error;
  }
  const ownsDatabase = !options.database;

  // Servers that are down now are retried in the background (named in /healthz); their tools appear when they answer.
  const mcp = mcpConfig.config.servers.length > 0 ? await createMcpHub(mcpConfig.config, { logger: logger.child({ component: 'mcp' }) }) : undefined;
  const checkHealth = async (): Promise<HealthReport> => {
    try {
      // Shorter than the receiver's own wait for this answer, so a database that hangs is reported as such.
      await raceWithSignal(database.ping(), AbortSignal.timeout(5_000));
      const tools = mcp?.health().servers.map(({ name, state, tools, lastError }) => ({ name, state, tools, ...(lastError ? { lastError } : {}) }));
      return { status: 200, body: tools ? { ok: true, mcp: tools } : { ok: true } };
    } catch (error) {
      logger.warn('health check: the database is unreachable', { error });
      return { status: 503, body: { ok: false, error: 'database unreachable' } };
    }
  };
  const boltLogger = toBoltLogger(logger.child({ component: 'slack' }), config.logLevel);
  const clientOptions = {
    slackApiUrl: config.slack.apiUrl,
    // The client's default retries for about half an hour: far too long for a chat turn.
    retryConfig: { retries: 4, factor: 2, minTimeout: 500, maxTimeout: 10_000, maxRetryTime: 60_000 },
    timeout: 20_000,
  };
  const replicaId = options.workerId ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? config.runLeaseMs;
  let receiver: ThreadedHttpReceiver | undefined;
  let recorded: ReturnType<typeof createRecordedDeliveries> | undefined;
  let healthServer: Server | undefined;
  if (config.slack.mode === 'http') {
    const openQueryPort = database.openQueryPort?.bind(database);
    // The embedded database's one connection is held by whichever transaction the main thread has open: a delivery
    // recorded there waited for it before its 200. Flushed to a file in DATA_DIR instead, it waits for the disk. Only
    // in the DATA_DIR the database itself lives in and holds locked: an in-memory database keeps nothing across a
    // restart, and a journal outside that lock could be taken by another live process as a stopped one's leftovers.
    const journalDir = openQueryPort && database.dataDir ? path.join(database.dataDir, 'deliveries') : undefined;
    if (journalDir) {
      try {
        const moved = await moveLeftoverJournal(database.db, journalDir);
        if (moved > 0) logger.info('moved deliveries a stopped process had acknowledged into the database, to be answered', { count: moved });
      } catch (error) {
        if (ownsDatabase) await database.close();
        await mcp?.close();
        skills.close();
        throw new StartupError(`could not read the deliveries a stopped process left in ${journalDir} (${error instanceof Error ? error.message : String(error)}): DATA_DIR must be readable and writable by this user.`);
      }
    }
    receiver = createThreadedHttpReceiver({
      signingSecret: config.slack.signingSecret!,
      logger: logger.child({ component: 'slack' }),
      health: checkHealth,
      // Every Events API delivery is a row in slack_deliveries before Slack gets its 200 (Slack never sends again
      // what it got a 200 for); Socket Mode acknowledges over its socket and Slack redelivers unacknowledged ones.
      journal: openQueryPort ? { openPort: openQueryPort, sql: RECORD_DELIVERIES_SQL, receivedBy: replicaId, dir: journalDir } : undefined,
      onDelivered: (deliveryId) => recorded?.onDelivered(deliveryId),
      activity,
      killAfterAckForTests: options.killAfterAckForTests,
    });
  }
  const app = new App({
    token: config.slack.botToken,
    // Socket Mode opens its connection (apps.connections.open) with a client of its own: without these options it
    // would ignore SLACK_API_URL and always call slack.com, breaking GovSlack, proxies and tests.
    ...(receiver ? { receiver } : { socketMode: true, appToken: config.slack.appToken, installerOptions: { clientOptions } }),
    logger: boltLogger,
    clientOptions,
    deferInitialization: true,
  });
  validatePayloadsAtTheEdge(app, logger.child({ component: 'slack' }));
  // The HTTP receiver registers what it hands Bolt; over Socket Mode, Bolt's own processing is registered here.
  if (!receiver) app.use(({ next }) => activity.track(next()));
  try {
    await app.init();
  } catch (error) {
    if (ownsDatabase) await database.close();
    await mcp?.close();
    skills.close();
    throw new StartupError(`Slack refused SLACK_BOT_TOKEN (${describeSlackError(error)}): check it and SLACK_API_URL.`);
  }
  const identity = await app.client.auth.test();
  const bot: BotIdentity = { userId: identity.user_id!, botId: identity.bot_id, name: identity.user ?? 'threadwise' };

  const model = createChatModel(config.model, logger);
  const extractor = createDocumentExtractor({ ocr: resolveOcrSettings(config.files, (sentence) => logger.warn(sentence)) });
  const files = createThreadFiles({
    db: database.db,
    extractor,
    ...createFileSearch(database.db, config.model),
    openSource: (objects) => createSlackFileSource({ db: database.db, slack: { botToken: config.slack.botToken, apiUrl: config.slack.apiUrl }, objects }),
    limits: { maxFileBytes: config.files.maxFileBytes, maxImageBytes: config.files.maxImageBytes },
    preloadKb: config.files.preloadKb,
    maxImagesPerTurn: config.files.maxImagesPerTurn,
    model,
    logger,
  });
  const threads = createSlackThreadSource(app.client);
  const toolsFor = createChannelTools(builtInTools(), mcp);

  // Per-channel settings: the environment's defaults, each channel's overrides on top, cached per replica and
  // invalidated through the store's version counter when any replica saves.
  const settingsDefaults = defaultChannelSettings(config);
  const settingsChoices = (): SettingsChoices => ({
    models: config.model.allowedModels ?? [config.model.name],
    skills: skills.list().map((skill) => skill.name),
    mcpServers: mcpConfig.config.servers.map((server) => server.name),
  });
  const channelSettings = createChannelSettingsResolver<EffectiveChannelSettings>({
    db: database.db,
    effective: (stored) => effectiveChannelSettings(settingsDefaults, stored, settingsChoices()),
    now,
  });
  const settingsFor = (teamId: string | undefined, channelId: string) => channelSettings.settingsFor(teamId ?? '', channelId);
  // A DM follows the channel its asker was last looking at in Slack's agent view; without one, the defaults.
  const runSettings: RunSettingsSource = async (thread, run) => {
    const teamId = run.teamId || thread.teamId || '';
    const viewing = thread.channelId.startsWith('D') && run.triggerUserId ? await userChannelContext(database.db, teamId, run.triggerUserId) : undefined;
    return settingsFor(teamId, viewing ?? thread.channelId);
  };
  // One client per model a channel chose, made on first use (each remembers what its endpoint accepts).
  const channelModels = new Map<string, ConfiguredChatModel>();
  const modelFor = (name: string) => {
    if (!(config.model.allowedModels ?? []).includes(name)) return model;
    let chosen = channelModels.get(name);
    if (!chosen) {
      chosen = createChatModel({ ...config.model, name }, logger);
      channelModels.set(name, chosen);
    }
    return chosen;
  };
  // Issue 16: a trace per run when an OTLP endpoint is set; the run only sees the observer seam.
  const tracing = config.tracing.endpoint ? createTracing({ endpoint: config.tracing.endpoint, captureContent: config.tracing.captureContent }) : undefined;
  const execute = createRunExecutor({
    bot,
    threads,
    answers: createSlackAnswerChannels(app.client, { logger, stream: true, timeZone: config.timeZone, nameOf: threads.knownName, clock }),
    ledger: createRunLedger(database.db),
    files,
    model,
    toolsFor,
    modelFor,
    contextWindowOf: contextWindowFor,
    settingsFor: runSettings,
    skills,
    skillIndex: () => skills.list(),
    settings: agentSettings(config, { stream: true }),
    now,
    logger,
    prices: config.prices,
    observer: tracing?.observer,
  });
  const worker = createRunWorker({
    db: database.db,
    owner: replicaId,
    logger,
    leaseMs,
    pollMs: options.pollMs ?? 2_000,
    concurrency: options.concurrency ?? 4,
    execute,
    clock,
    activity,
  });
  const intake = createIntake({
    db: database.db,
    logger,
    clock,
    activity,
    policy: {
      allowedChannels: config.slack.allowedChannels,
      allowedUsers: config.slack.allowedUsers,
      allowDirectMessages: config.slack.allowDirectMessages,
      userRateLimitPerMinute: config.slack.userRateLimitPerMinute,
      dailyLimits: { userUsd: config.limits.dailyUserUsd, channelUsd: config.limits.dailyChannelUsd },
    },
    onQueued: () => worker.wake(),
    onRefusedByDatabase: ({ deliveryIds }) => deliveryIds.forEach((id) => recorded?.onDelivered(id)),
    onRefused: async (trigger, refusal) => {
      // Over a daily limit: said in the thread, so everyone there knows why no answer comes.
      if ('inThread' in refusal) {
        await app.client.chat.postMessage({ channel: trigger.channelId, thread_ts: trigger.threadTs, text: refusal.message, unfurl_links: false });
        return;
      }
      await app.client.chat.postEphemeral({
        channel: trigger.channelId,
        user: trigger.userId,
        thread_ts: trigger.threadTs === trigger.messageTs ? undefined : trigger.threadTs,
        text: refusal.message,
      });
    },
    onFiles: (trigger, threadId) => {
      void activity.track((async () => {
        const messages = await threads.messages(trigger.channelId, trigger.threadTs);
        // With the authors' names, as a run registers them: files read ahead of time are not "from someone".
        const authors = messages.flatMap((message) => (message.files?.length && message.user ? [message.user] : []));
        await files.prefetch(threadId, messages, await threads.names([...new Set(authors)]));
      })()).catch((error) => logger.warn('could not extract files ahead of time', { threadId, error }));
    },
  });
  const settingsSurface = {
    resolver: channelSettings,
    defaults: settingsDefaults,
    choices: settingsChoices,
    admins: config.approval.adminUsers,
    editors: config.slack.settingsEditors,
    logger,
  };
  const listenerDeps: ListenerDependencies = {
    db: database.db,
    intake,
    bot,
    replyWithoutMention: (teamId, channelId) =>
      settingsFor(teamId, channelId).then(
        (settings) => settings.replyWithoutMention,
        (error) => {
          logger.warn('could not read the channel settings; following REPLY_WITHOUT_MENTION', { channel: channelId, error });
          return config.slack.replyWithoutMention;
        },
      ),
    subcommands: { settings: settingsCommand(settingsSurface) },
    skills: () => skills.list(),
    tools: (channelId: string) => describeChannelTools(toolsFor(channelId)),
    logger,
    replicaId,
  };
  registerListeners(app, listenerDeps);
  recorded = createRecordedDeliveries({
    db: database.db,
    replicaId,
    leaseMs,
    logger,
    tookDelivery: (deliveryId) => intake.tookDelivery(deliveryId),
    replay: receiver ? (deliveries) => receiver.replay(deliveries) : undefined,
    recoverQuestions: (questions) => recoverQuestions(app.client, listenerDeps, questions),
    clock,
    activity,
  });
  registerSettingsSubmission(app as unknown as ViewHost, settingsSurface);
  registerReactionTriggers(app as never, { db: database.db, intake, bot, settingsFor, logger, replicaId });
  registerAskShortcuts(app as unknown as ShortcutHost, { db: database.db, intake, botName: bot.name, logger, replicaId });
  registerAgentView(app as never, { db: database.db, settingsFor, logger });
  registerAppHome(app as never, {
    db: database.db,
    settingsFor,
    skills: () => skills.list(),
    tools: () => describeChannelTools(toolsFor('')),
    admins: config.approval.adminUsers,
    botName: bot.name,
    now,
    logger,
  });
  // Before anything is recorded under this replica's id: a replica with no heartbeat looks dead to the others.
  await recorded.register();
  const approvalDeps = { db: database.db, timeZone: config.timeZone, logger, onRunResumable: () => worker.wake() };
  registerApprovalActions(app, { ...approvalDeps, admins: config.approval.adminUsers });
  app.error(async (error) => {
    logger.error('unhandled error in a Slack listener', { error });
  });

  let port: number;
  if (receiver) {
    await app.start(config.slack.port);
    port = receiver.port;
  } else {
    await app.start();
    // Socket Mode has no HTTP server of its own: keep /healthz for the platform's probes.
    healthServer = createServer((req, res) => {
      if (req.url !== '/healthz') return void res.writeHead(404).end();
      void checkHealth().then(({ status, body }) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
    });
    await new Promise<void>((resolve) => healthServer!.listen(config.slack.port, resolve));
    port = (healthServer.address() as { port: number }).port;
  }
  // The token tables load on first use and block the event loop while they do (seconds on a busy machine): load
  // them now, before events arrive, so the first run neither delays acknowledgements nor misses its heartbeats.
  countTokens('threadwise', model.name);
  let operatorConsole: Awaited<ReturnType<typeof startOperatorConsole>>;
  try {
    operatorConsole = await startOperatorConsole(config, { database, logger, mcp, extractor, intake, worker, now });
  } catch (error) {
    await app.stop().catch(() => {});
    healthServer?.close();
    await extractor.close();
    await mcp?.close();
    skills.close();
    if (ownsDatabase) await database.close();
    throw new StartupError(error instanceof Error ? error.message : String(error));
  }
  worker.start();
  // What a process that died (kill -9, OOM, power cut) had acknowledged but not yet turned into runs.
  await recorded.start();
  const housekeeping = () => {
    // Dedupe records only need to outlive Slack's retries (minutes); without pruning the tables grow forever.
    activity.track(pruneDedupeRecords(database.db)).catch((error) => logger.warn('could not prune old dedupe records', { error }));
    if (config.retentionDays > 0) {
      activity.track(sweepExpiredContent(database.db, config.retentionDays)).then(
        (swept) => logger.info('retention sweep', { retentionDays: config.retentionDays, ...swept }),
        (error) => logger.warn('could not sweep content past RETENTION_DAYS', { error }),
      );
    }
  };
  const stopPruning = every(clock, options.housekeepingMs ?? HOUSEKEEPING_MS, housekeeping, { background: true });
  // And once at start, shortly after: a process restarted more often than hourly still sweeps.
  const cancelFirstSweep = clock.setTimeout(housekeeping, options.firstHousekeepingMs ?? 10_000, { background: true });
  // Tool calls nobody decided in time: any replica may expire them (each expires once), and the run carries on.
  const stopExpiring = every(
    clock,
    options.approvalSweepMs ?? APPROVAL_SWEEP_MS,
    () => void activity.track(expireWaitingApprovals(app.client, approvalDeps)).catch((error) => logger.warn('could not expire waiting approvals', { error })),
    { background: true },
  );
  logger.info('threadwise is running', { mode: config.slack.mode, port, bot: bot.name, database: database.driver, model: model.name });

  return {
    port,
    bot,
    database,
    settingsFor: (teamId, channelId) => channelSettings.settingsFor(teamId, channelId),
    consoleUrl: operatorConsole?.url,
    async idle() {
      for (;;) {
        await activity.idle();
        // A delivery the receiver's thread acknowledged is on its way to this thread: a moment, then look again.
        if ((receiver?.pending() ?? 0) > 0) {
          await sleep(systemClock, 5);
          continue;
        }
        // Nothing in flight; is a run due (queued by another replica, a lease run out, an approval decided)?
        if ((await worker.poll()) === 0 && activity.busy() === 0) return;
      }
    },
    async stop(graceMs = config.shutdownGraceMs) {
      const deadline = clock.now() + graceMs;
      stopPruning();
      cancelFirstSweep();
      stopExpiring();
      // No new events from here on: Slack sends them to another replica, or retries them after we restart.
      await app.stop().catch(() => {});
      healthServer?.close();
      await operatorConsole?.close();
      // Messages already acknowledged get the grace period to reach the database (it may be down right now).
      const lost = await intake.drain(graceMs);
      if (lost > 0) logger.warn('stopped with acknowledged messages not yet runs; their recorded deliveries are replayed by the next start', { lost });
      await recorded!.stop();
      await worker.stop(Math.max(0, deadline - clock.now()));
      await tracing?.shutdown().catch((error) => logger.warn('could not send the last traces', { error }));
      await extractor.close();
      await mcp?.close();
      skills.close();
      if (ownsDatabase) await database.close();
    },
  };
}

/** How often dedupe records are pruned and content past RETENTION_DAYS is swept. */
const HOUSEKEEPING_MS = 60 * 60_000;

/** How often waiting approvals are checked for expiry. */
const APPROVAL_SWEEP_MS = 15_000;

function describeSlackError(error: unknown): string {
  const code = (error as { data?: { error?: string }; code?: string }).data?.error ?? (error as { code?: string }).code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
