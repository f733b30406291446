/**
 * threadwise without Slack, for `npm run chat` and `npm run eval`: the one composition (compose.ts) with the local
 * edge (terminal/local-edge.ts) in Slack's place and files read from the local disk. MCP tools come from the same
 * mcp.json; a call that needs approval asks the person at the terminal (the conversation's `approveNow`), or is
 * refused with a sentence where nobody can be asked. No worker claims runs here: each question is an unleased run
 * owned by this process (store/unleased-runs.ts), so a terminal sharing a PostgreSQL with the bot never answers
 * Slack's runs and the bot never takes over the terminal's.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import type { LocalConfig } from '../config';
import type { ApproveNow } from '../core/approval';
import { createClosers } from '../core/closers';
import type { Logger } from '../logging/logger';
import type { McpConfig } from '../mcp';
import { sweepExpiredContent } from '../store/retention';
import { failAbandonedUnleasedRuns, mayPostUnleasedRun } from '../store/unleased-runs';
import { createLocalEdge } from '../terminal/local-edge';
import { createLocalFileSource } from '../terminal/local-file-source';
import type { LocalAgent } from '../terminal/local-agent';
import type { RetryingOptions } from '../agent/retrying-chat-model';
import { describeChannelTools } from '../tools/channel-tools';
import { composeThreadwise, loadMcpServers, type RunExecutor } from './compose';

export interface LocalOptions {
  logger: Logger;
  /** `memory`: a database of its own that ends with the process (evals); default the configured one (DATA_DIR or DATABASE_URL). */
  database?: 'configured' | 'memory';
  /** Reload skills edited while the process runs (an interactive chat). */
  watchSkills?: boolean;
  /** Model retries; a scripted model gains nothing from waiting. */
  retry?: RetryingOptions;
  now?: () => number;
  /** mcp.json, when the caller read it already (to redact its secrets in its log); else read here. */
  mcpServers?: McpConfig;
  /** Where mcp.json's ${VAR}s come from; default process.env. */
  env?: Record<string, string | undefined>;
}

/** Every local process's runs are owned by `local:…`; runs such a process left unfinished are closed by the next. */
const OWNER_PREFIX = 'local:';
/** Past the run's time limit by this much, an unleased run's process is surely gone. */
const ABANDONED_AFTER_MS = 15 * 60_000;

export async function openLocalThreadwise(config: LocalConfig, options: LocalOptions): Promise<LocalAgent> {
  const { logger } = options;
  const now = options.now ?? Date.now;
  const closers = createClosers((name, error) => logger.warn(`closing the ${name} failed`, { error }));
  const parts = await closers.closeOnFailure(async () => {
    const composed = await composeThreadwise(config, {
      closers,
      logger,
      mcpServers: options.mcpServers ?? (await loadMcpServers(config, options.env ?? process.env)),
      database: { where: options.database ?? 'configured', waitMs: 10_000, maxConnections: 4 },
      watchSkills: options.watchSkills ?? false,
      retry: options.retry,
      fileSource: () => (objects) => createLocalFileSource({ objects }),
      now,
    });
    await closeAbandonedRuns(config, composed.database.db, now, logger);
    return composed;
  });
  const db = parts.database.db;
  const bot = { userId: 'local:threadwise', name: 'threadwise' };
  const owner = `${OWNER_PREFIX}${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Charts and attached files land here; the chat prints each path as it is written.
  const edge = createLocalEdge({ db, bot, owner, now, outputDir: path.resolve(config.storage.dataDir, 'outputs') });
  const ledger = {
    // The run's own process is its only owner: no lease to check, only that it is still running and unanswered.
    mayPost: (runId: number, runOwner: string) => mayPostUnleasedRun(db, runId, runOwner),
    // Nobody could carry a parked local run on (no worker, no buttons): approval is asked on the spot instead.
    park: async () => undefined,
  };
  // One executor per way of asking (made once each): the terminal's prompt, or nobody (evals, scripts).
  const executors = new Map<ApproveNow, RunExecutor>();
  const executorFor = (approveNow: ApproveNow) => {
    let execute = executors.get(approveNow);
    if (!execute) {
      execute = parts.createExecutor({ bot, threads: edge.threads, answers: edge.answers, ledger, approveNow });
      executors.set(approveNow, execute);
    }
    return execute;
  };
  const prefetch = (threadId: number, messages: Parameters<typeof parts.files.prefetch>[1]) => {
    void parts.files.prefetch(threadId, messages).catch((error) => logger.warn('could not read files ahead of the question', { threadId, error }));
  };

  return {
    bot,
    modelName: parts.model.name,
    maxFileBytes: config.files.maxFileBytes,
    skills: () => parts.skills.list(),
    tools: () => describeChannelTools(parts.toolsFor('')).tools,
    startConversation: (channelId, { approveNow = refuseApproval } = {}) =>
      edge.startConversation({ channelId, execute: executorFor(approveNow), prefetch }),
    close: () => closers.closeAll(),
  };
}

/** Where nobody can be asked (an eval, a script): a call that needs approval is not run, and the model is told why. */
const refuseApproval: ApproveNow = async (prompt) => ({
  approved: false,
  sentence: `${prompt.tool} needs a person's approval, and nobody can be asked here, so it was not run. Answer without it and say what you would have done.`,
});

/** Closes what earlier terminals left unfinished, and applies RETENTION_DAYS once per session. */
async function closeAbandonedRuns(config: LocalConfig, db: Parameters<typeof sweepExpiredContent>[0], now: () => number, logger: Logger): Promise<void> {
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
}
