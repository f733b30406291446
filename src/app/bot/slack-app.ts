/**
 * Bolt, as this bot runs it: HTTP mode behind the threaded receiver (every delivery journaled before its 200), or
 * Socket Mode; one Web API client configuration for both; payloads validated at the edge. Opened (token checked,
 * identity known) before the rest of the bot is wired, started once it is.
 */
import type { Activity } from '../../core/activity';
import { codeOf, messageOf, slackErrorCode } from '../../core/errors';
import path from 'node:path';
import { App } from '@slack/bolt';
import type { Config } from '../../config';
import type { BotIdentity } from '../../conversation';
import type { Closers } from '../../core/closers';
import type { Logger } from '../../logging/logger';
import { identifyBotAndWorkspace, type SlackWorkspace } from '../../slack/bot-identity';
import { createThreadedHttpReceiver, type HealthReport, type PageHandler, type ThreadedHttpReceiver } from '../../slack/receiver/threaded-http-receiver';
import type { DatabaseHandle } from '../../store/database';
import { RECORD_DELIVERIES_SQL } from '../../store/delivery-store';
import { toBoltLogger } from '../bolt-logger';
import { moveLeftoverJournal } from '../recorded-deliveries';
import { StartupError } from '../startup-error';
import { validatePayloadsAtTheEdge } from '../validated-payloads';
import { serveHealth } from './health';

export interface SlackAppParts {
  logger: Logger;
  database: DatabaseHandle;
  replicaId: string;
  health: () => Promise<HealthReport>;
  /** Bolt has processed a journaled delivery (or dropped it). */
  onDelivered(deliveryId: string): void;
  /** Registers what the receiver hands Bolt (or, over Socket Mode, Bolt's own processing), for idle(). */
  activity: Activity;
  killAfterAckForTests?: boolean;
  /** GET pages served on PORT in either mode (the OAuth callback). */
  pages?: Record<string, PageHandler>;
}

export interface SlackApp {
  app: App;
  /** HTTP mode only. */
  receiver?: ThreadedHttpReceiver;
  bot: BotIdentity;
  /** Served on PORT beside /healthz in Socket Mode too. */
  pages?: Record<string, PageHandler>;
  /** The workspace auth.test named (its URL builds permalinks when chat.getPermalink fails). */
  workspace: SlackWorkspace;
}

export async function openSlackApp(config: Config, parts: SlackAppParts): Promise<SlackApp> {
  const { logger, database } = parts;
  const slackLogger = logger.child({ component: 'slack' });
  const clientOptions = {
    slackApiUrl: config.slack.apiUrl,
    // The client's default retries for about half an hour: far too long for a chat turn.
    retryConfig: { retries: 4, factor: 2, minTimeout: 500, maxTimeout: 10_000, maxRetryTime: 60_000 },
    timeout: 20_000,
  };
  let receiver: ThreadedHttpReceiver | undefined;
  if (config.slack.mode === 'http') {
    const openQueryPort = database.openQueryPort?.bind(database);
    // The embedded database's one connection is held by whichever transaction the main thread has open: a delivery
    // recorded there waited for it before its 200. Flushed to a file in DATA_DIR instead, it waits for the disk. Only
    // in the DATA_DIR the database itself lives in and holds locked: an in-memory database keeps nothing across a
    // restart, and a journal outside that lock could be taken by another live process as a stopped one's leftovers.
    const journalDir = openQueryPort && database.dataDir ? path.join(database.dataDir, 'deliveries') : undefined;
    if (journalDir) await moveJournalLeftovers(database, journalDir, logger);
    receiver = createThreadedHttpReceiver({
      signingSecret: config.slack.signingSecret!,
      logger: slackLogger,
      health: parts.health,
      // Every Events API delivery is a row in slack_deliveries before Slack gets its 200 (Slack never sends again
      // what it got a 200 for); Socket Mode acknowledges over its socket and Slack redelivers unacknowledged ones.
      journal: openQueryPort ? { openPort: openQueryPort, sql: RECORD_DELIVERIES_SQL, receivedBy: parts.replicaId, dir: journalDir } : undefined,
      onDelivered: parts.onDelivered,
      activity: parts.activity,
      killAfterAckForTests: parts.killAfterAckForTests,
      pages: parts.pages,
    });
  }
  const app = new App({
    token: config.slack.botToken,
    // Socket Mode opens its connection (apps.connections.open) with a client of its own: without these options it
    // would ignore SLACK_API_URL and always call slack.com, breaking GovSlack, proxies and tests.
    ...(receiver ? { receiver } : { socketMode: true, appToken: config.slack.appToken, installerOptions: { clientOptions } }),
    logger: toBoltLogger(slackLogger, config.logLevel),
    clientOptions,
    deferInitialization: true,
  });
  validatePayloadsAtTheEdge(app, slackLogger);
  // The HTTP receiver registers what it hands Bolt; over Socket Mode, Bolt's own processing is registered here.
  if (!receiver) app.use(({ next }) => parts.activity.track(next()));
  try {
    await app.init();
  } catch (error) {
    throw new StartupError(`Slack refused SLACK_BOT_TOKEN (${describeSlackError(error)}): check it and SLACK_API_URL.`);
  }
  return { app, receiver, ...(await identifyBotAndWorkspace(app.client)), pages: parts.pages };
}

/** Starts receiving events; returns the port /slack/events (HTTP) or /healthz (Socket Mode) listens on. */
export async function startSlackApp(slack: SlackApp, config: Config, health: () => Promise<HealthReport>, closers: Closers): Promise<number> {
  const { app, receiver } = slack;
  // No new events once closing starts: Slack sends them to another replica, or retries them after we restart.
  closers.add('slack app', () => app.stop().catch(() => {}));
  if (receiver) {
    await app.start(config.slack.port);
    return receiver.port;
  }
  await app.start();
  // Socket Mode has no HTTP server of its own: keep /healthz for the platform's probes.
  const server = await serveHealth(config.slack.port, health, slack.pages);
  closers.add('health server', () => server.close());
  return server.port;
}

async function moveJournalLeftovers(database: DatabaseHandle, journalDir: string, logger: Logger): Promise<void> {
  try {
    const moved = await moveLeftoverJournal(database.db, journalDir);
    if (moved > 0) logger.info('moved deliveries a stopped process had acknowledged into the database, to be answered', { count: moved });
  } catch (error) {
    throw new StartupError(`could not read the deliveries a stopped process left in ${journalDir} (${messageOf(error)}): DATA_DIR must be readable and writable by this user.`);
  }
}

function describeSlackError(error: unknown): string {
  const code = slackErrorCode(error) ?? codeOf(error);
  return code ?? messageOf(error);
}
