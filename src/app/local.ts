/**
 * threadwise without Slack, for `npm run chat` and `npm run eval`: the same run executor, files, context, skills,
 * tools and loop as the bot (index.ts), with the local edge (terminal/local-edge.ts) in Slack's place and files read
 * from the local disk instead of downloaded. No worker claims runs here: each question is an unleased run owned by
 * this process (store/unleased-runs.ts), so a terminal sharing a PostgreSQL with the bot never answers Slack's runs
 * and the bot never takes over the terminal's.
 */
import { agentSettings } from './agent-settings';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { LocalConfig } from '../config';
import { createDocumentExtractor, resolveOcrSettings } from '../documents';
import { createLocalFileSource } from '../terminal/local-file-source';
import { createThreadFiles } from '../files/thread-files';
import type { Logger } from '../logging/logger';
import { sweepExpiredContent } from '../store/retention';
import { createRunExecutor } from '../runs/answer-run';
import { loadSkillLibrary, SkillLoadError } from '../skills';
import { createRunLedger } from '../store/run-ledger';
import type { DatabaseHandle } from '../store/database';
import { failAbandonedUnleasedRuns, mayPostUnleasedRun } from '../store/unleased-runs';
import { createLocalEdge } from '../terminal/local-edge';
import type { LocalAgent } from '../terminal/local-agent';
import { createDefaultTools } from '../tools';
import type { RetryingOptions } from '../agent/retrying-chat-model';
import { createChatModel } from './create-chat-model';
import { DataDirInUseError } from './database/data-dir-lock';
import { openDatabaseWhenReachable } from './database/wait-for-database';
import { createFileSearch } from './file-search';
import { StartupError } from './startup-error';
import { messageOf } from '../core/errors';

export interface LocalOptions {
  logger: Logger;
  /** `memory`: a database of its own that ends with the process (evals); default the configured one (DATA_DIR or DATABASE_URL). */
  database?: 'configured' | 'memory';
  /** Reload skills edited while the process runs (an interactive chat). */
  watchSkills?: boolean;
  /** Model retries; a scripted model gains nothing from waiting. */
  retry?: RetryingOptions;
  now?: () => number;
}

/** Every local process's runs are owned by `local:…`; runs such a process left unfinished are closed by the next. */
const OWNER_PREFIX = 'local:';
/** Past the run's time limit by this much, an unleased run's process is surely gone. */
const ABANDONED_AFTER_MS = 15 * 60_000;

export async function openLocalThreadwise(config: LocalConfig, options: LocalOptions): Promise<LocalAgent> {
  const { logger } = options;
  const now = options.now ?? Date.now;
  let skills;
  try {
    skills = await loadSkillLibrary(config.skillsDir, { watch: options.watchSkills ?? false, onWarning: (message) => logger.warn(message) });
  } catch (error) {
    if (error instanceof SkillLoadError) throw new StartupError(error.message);
    throw new StartupError(`could not read the skills in ${config.skillsDir} (SKILLS_DIR): ${messageOf(error)}`);
  }
  let database: DatabaseHandle;
  try {
    database = await openDatabaseWhenReachable(
      options.database === 'memory'
        ? { driver: 'pglite' }
        : config.storage.databaseUrl
          ? { driver: 'postgres', url: config.storage.databaseUrl, maxConnections: 4 }
          : { driver: 'pglite', dataDir: config.storage.dataDir },
      logger,
      10_000,
    );
  } catch (error) {
    skills.close();
    if (error instanceof StartupError) throw error;
    if (error instanceof DataDirInUseError) throw new StartupError(error.message);
    const where = options.database === 'memory' ? 'an in-memory database' : config.storage.databaseUrl ? 'the database at DATABASE_URL' : `the database in ${config.storage.dataDir} (DATA_DIR)`;
    throw new StartupError(`could not open ${where}: ${messageOf(error)}`);
  }
  const db = database.db;
  const owner = `${OWNER_PREFIX}${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const abandoned = await failAbandonedUnleasedRuns(
    db,
    OWNER_PREFIX,
    new Date(now() - config.agent.runTimeoutMs - ABANDONED_AFTER_MS),
    'the terminal that asked was closed before the answer was finished',
  );
  if (abandoned > 0) logger.info('closed runs that earlier terminals left unfinished', { runs: abandoned });
  // The terminal keeps transcripts and extracted files too: the same RETENTION_DAYS applies, swept once per session
  // (awaited, so that a short session never closes the database under it).
  if (config.retentionDays > 0) {
    await sweepExpiredContent(db, config.retentionDays).catch((error) => logger.warn('could not sweep content past RETENTION_DAYS', { error }));
  }

  const bot = { userId: 'local:threadwise', name: 'threadwise' };
  const model = createChatModel(config.model, logger, { retry: options.retry });
  const extractor = createDocumentExtractor({ ocr: resolveOcrSettings(config.files, (sentence) => logger.warn(sentence)) });
  const files = createThreadFiles({
    db,
    extractor,
    ...createFileSearch(db, config.model),
    openSource: (objects) => createLocalFileSource({ objects }),
    limits: { maxFileBytes: config.files.maxFileBytes, maxImageBytes: config.files.maxImageBytes },
    preloadKb: config.files.preloadKb,
    maxImagesPerTurn: config.files.maxImagesPerTurn,
    model,
    logger,
  });
  const edge = createLocalEdge({ db, bot, owner, now });
  // threadwise's own tools: MCP servers are not connected here (nor, yet, in the bot's composition).
  const defaultTools = createDefaultTools();
  const execute = createRunExecutor({
    bot,
    threads: edge.threads,
    answers: edge.answers,
    ledger: {
      ...createRunLedger(db),
      // The run's own process is its only owner: no lease to check, only that it is still running and unanswered.
      mayPost: (runId, runOwner) => mayPostUnleasedRun(db, runId, runOwner),
      // Nobody could carry a parked local run on (no worker, no approval buttons): it is never parked.
      park: async () => undefined,
    },
    files,
    model,
    toolsFor: () => defaultTools,
    skills,
    skillIndex: () => skills.list(),
    settings: agentSettings(config, { stream: true }),
    now,
    logger,
    prices: config.prices,
  });

  let closing: Promise<void> | undefined;
  return {
    bot,
    modelName: model.name,
    maxFileBytes: config.files.maxFileBytes,
    skills: () => skills.list(),
    startConversation: (channelId) =>
      edge.startConversation({
        channelId,
        execute,
        prefetch: (threadId, messages) => {
          void files.prefetch(threadId, messages).catch((error) => logger.warn('could not read files ahead of the question', { threadId, error }));
        },
      }),
    close() {
      closing ??= (async () => {
        await extractor.close().catch((error) => logger.warn('closing the extraction workers failed', { error }));
        skills.close();
        await database.close();
      })();
      return closing;
    },
  };
}
