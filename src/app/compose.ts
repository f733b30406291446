/**
 * The one composition, from config: database, skills, MCP servers, model, document extraction, search, the
 * thread's files, tools and traces — what a run needs whichever edge it answers on. The bot (index.ts), the terminal
 * and the evals (local.ts) call it and add only what is theirs: the edge's threads, answers, file bytes and way of
 * asking for approval. Every part it opens goes onto the caller's closers.
 */
import { messageOf } from '../core/errors';
import type { LocalConfig } from '../config';
import type { BotIdentity } from '../conversation';
import type { ApproveNow } from '../core/approval';
import type { Closers } from '../core/closers';
import type { RunObserver } from '../core/run-observer';
import { createDocumentExtractor, resolveOcrSettings } from '../documents';
import type { OpenFileSource } from '../files/file-source';
import { createThreadFiles } from '../files/thread-files';
import type { Logger } from '../logging/logger';
import type { McpConfig } from '../mcp';
import { loadMcpConfig } from '../mcp/load-mcp-config';
import { createRunExecutor, type RunDependencies } from '../runs/answer-run';
import type { SignInPrompter } from '../runs/park-for-sign-in';
import type { OpenAnswerChannel, RunLedger, RunSettingsSource, ThreadSource } from '../runs/seams';
import type { RunKnowledge } from '../runs/seams';
import { loadSkillLibrary, SkillLoadError } from '../skills';
import type { Database, DatabaseHandle } from '../store/database';
import { createRunLedger } from '../store/run-ledger';
import { builtInTools, tableTools } from '../tools';
import { createTableEngine } from '../tables';
import { createChartRenderer } from '../charts/chart-renderer';
import type { RetryingOptions } from '../agent/retrying-chat-model';
import { contextWindowFor } from '../config/models';
import { agentSettings } from './agent-settings';
import { createChannelModels } from './channel-models';
import { createChannelTools } from '../tools/channel-tools';
import { openConfiguredDatabase, type DatabaseChoice } from './database/open-configured-database';
import { createFileSearch } from './file-search';
import { openSignIn } from './sign-in';
import { StartupError } from './startup-error';

export interface ComposeOptions {
  closers: Closers;
  logger: Logger;
  /** mcp.json, read before the logger was made (its secrets are redacted there): loadMcpServers. */
  mcpServers: McpConfig;
  /** An open database the caller keeps (tests share one), or which one to open here. */
  database: DatabaseHandle | DatabaseChoice;
  /** Reload skills edited while the process runs. */
  watchSkills: boolean;
  /** Model retries; a scripted model gains nothing from waiting. */
  retry?: RetryingOptions;
  /** Where the thread's file bytes come from: Slack's downloads, or the local disk. */
  fileSource: (db: Database) => OpenFileSource;
  now?: () => number;
  /** Told each model call's outcome (the model's state in /healthz; check-model.ts). */
  modelHealth?: { record(error?: unknown): void };
}

/** What only the edge knows: who answers, where the thread is read and the answer goes, how approval is asked. */
export interface EdgeSeams {
  bot: BotIdentity;
  threads: ThreadSource;
  answers: OpenAnswerChannel;
  /** Changes to the run ledger the edge needs (the terminal's runs have no lease and are never parked). */
  ledger?: Partial<RunLedger>;
  settingsFor?: RunSettingsSource;
  /** Asks the person at hand instead of parking the run for a decision in the thread. */
  approveNow?: ApproveNow;
  /** Shows the person a run answers their private Connect prompt (per-person sign-in; the bot's edge only). */
  signInPrompt?: SignInPrompter;
  /**
   * Beyond the thread: memories and the knowledge tools (search_messages, read_channel, remember, forget). The bot
   * gives them; the terminal does not (no Slack: nobody's channel membership to decide what they may read).
   */
  knowledge?: RunKnowledge;
  /** Scheduled tasks (Slack only): an occurrence's request, and the tools a run is offered as its asker. */
  scheduledRequest?: RunDependencies['scheduledRequest'];
  runTools?: RunDependencies['runTools'];
}

export type Composition = Awaited<ReturnType<typeof composeThreadwise>>;
export type RunExecutor = ReturnType<typeof createRunExecutor>;

/** mcp.json (MCP_CONFIG, else ./mcp.json if there is one), its ${VAR}s from `env`; a problem is a StartupError. */
export async function loadMcpServers(config: Pick<LocalConfig, 'mcpConfigPath'>, env: Record<string, string | undefined>): Promise<McpConfig> {
  const loaded = await loadMcpConfig({ path: config.mcpConfigPath, env });
  if (!loaded.ok) throw new StartupError(loaded.problems.join('; '));
  return loaded.config;
}

export async function composeThreadwise(config: LocalConfig, options: ComposeOptions) {
  const { closers, logger } = options;
  const skills = await loadSkills(config.skillsDir, options.watchSkills, logger);
  closers.add('skills', () => skills.close());
  const database = 'db' in options.database ? options.database : await openConfiguredDatabase(config.storage, options.database, logger);
  if (database !== options.database) closers.add('database', () => database.close());
  const db = database.db;

  // Servers that are down now are retried in the background (named in /healthz); their tools appear when they answer.
  // The MCP SDK loads only when mcp.json names a server (a quarter of a second of every start otherwise).
  const mcp = options.mcpServers.servers.length > 0 ? await (await import('../mcp/hub')).createMcpHub(options.mcpServers, { logger: logger.child({ component: 'mcp' }) }) : undefined;
  if (mcp) closers.add('mcp', () => mcp.close());
  // Servers with "auth": "oauth" are used with each person's own account (app/sign-in.ts); closed before the hub.
  const signIn = await openSignIn(config.signIn, options.mcpServers, db, logger);
  if (signIn) closers.add('per-person MCP servers', () => signIn.personal.close());
  const models = createChannelModels(config.model, logger, { retry: options.retry, onOutcome: options.modelHealth?.record });
  const model = models.workspace;
  const extractor = createDocumentExtractor({
    ocr: resolveOcrSettings(config.files, (sentence) => logger.warn(sentence)),
    // The first question's preload takes PRELOAD_KB of a file; twice that leaves room for page markers and cuts.
    firstPassChars: 2 * config.files.preloadKb * 1024,
  });
  closers.add('document extractor', () => extractor.close());
  // One DuckDB process for the whole process (started on the first query), every thread's tables in it by content hash.
  const tableEngine = createTableEngine();
  closers.add('table engine', () => tableEngine.close());
  // Charts are drawn on a worker thread, started by the first chart (the console's run pages draw with it too).
  const charts = createChartRenderer();
  closers.add('chart renderer', () => charts.close());
  const files = createThreadFiles({
    db,
    extractor,
    ...createFileSearch(db, config.model),
    openSource: options.fileSource(db),
    limits: { maxFileBytes: config.files.maxFileBytes, maxImageBytes: config.files.maxImageBytes },
    preloadKb: config.files.preloadKb,
    maxImagesPerTurn: config.files.maxImagesPerTurn,
    model,
    logger,
    tableEngine,
  });
  const ownTools = () => [...builtInTools(), ...tableTools(charts)];
  const toolsFor = createChannelTools(ownTools(), mcp, { personal: signIn?.personal });
  // Issue 16: a trace per run when an OTLP endpoint is set; the run only sees the observer seam.
  // Loaded only when tracing is on: OpenTelemetry's SDK is ~250 modules, a tenth of what a start loads.
  const tracing = config.tracing.endpoint
    ? (await import('./tracing/otel-run-observer')).createTracing({ endpoint: config.tracing.endpoint, captureContent: config.tracing.captureContent })
    : undefined;
  if (tracing) closers.add('tracing', () => tracing.shutdown());
  const observer: RunObserver | undefined = tracing?.observer;
  const now = options.now ?? Date.now;

  /** The run (runs/answer-run.ts) over this composition and one edge's seams. */
  function createExecutor(edge: EdgeSeams): RunExecutor {
    return createRunExecutor({
      bot: edge.bot,
      threads: edge.threads,
      answers: edge.answers,
      ledger: { ...createRunLedger(db), ...edge.ledger },
      files,
      model,
      toolsFor: edge.approveNow ? createChannelTools(ownTools(), mcp, { approveNow: edge.approveNow, personal: signIn?.personal }) : toolsFor,
      // Another replica's sign-in may have listed a per-person server's tools: fresh lists for each attempt.
      refreshTools: signIn ? () => signIn.personal.reload() : undefined,
      signIns: signIn && edge.signInPrompt ? { ledger: signIn.ledger, prompt: edge.signInPrompt } : undefined,
      modelFor: models.modelFor,
      contextWindowOf: contextWindowFor,
      settingsFor: edge.settingsFor,
      skills,
      skillIndex: () => skills.list(),
      settings: agentSettings(config, { stream: true }),
      now,
      logger,
      prices: config.prices,
      observer,
      knowledge: edge.knowledge,
      scheduledRequest: edge.scheduledRequest,
      runTools: edge.runTools,
    });
  }

  return { logger, database, skills, mcp, signIn, model, extractor, files, charts, tableEngine, toolsFor, createExecutor };
}

async function loadSkills(dir: string, watch: boolean, logger: Logger) {
  try {
    return await loadSkillLibrary(dir, { watch, onWarning: (message) => logger.warn(message) });
  } catch (error) {
    if (error instanceof SkillLoadError) throw new StartupError(error.message);
    throw new StartupError(`could not read the skills in ${dir} (SKILLS_DIR): ${messageOf(error)}`);
  }
}
