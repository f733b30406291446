/**
 * Beyond the thread, wired for the bot (DESIGN.md; issue 27): the Slack directory that decides who may read what,
 * the message index fed by events and backfills, the knowledge tools bound to each run's asker with memories
 * announced in its thread, the memories a request carries, and App Home's memories section. The backfill at start
 * runs in the background on a client of its own that waits out rate limits on the app's clock (tracked, so idle()
 * waits for it; aborted on stop) and never delays start-up.
 */
import { WebClient } from '@slack/web-api';
import type { Config } from '../../config';
import type { Activity } from '../../core/activity';
import type { Clock } from '../../core/clock';
import type { Closers } from '../../core/closers';
import type { BotIdentity } from '../../conversation';
import { backfillChannels } from '../../knowledge/backfill';
import { callWithRateLimit } from '../../knowledge/slack-api';
import { createSlackDirectory, type KnowledgeDirectory } from '../../knowledge/directory';
import type { Logger } from '../../logging/logger';
import type { RunKnowledge } from '../../runs/seams';
import type { SlackWorkspace } from '../../slack/bot-identity';
import { homeMemories, replaceMemoriesSection } from '../../slack/knowledge-home';
import type { KnowledgeListenerDependencies } from '../../slack/knowledge-listeners';
import { createMemoryAnnouncer } from '../../slack/memory-announcement';
import { renderMemoriesHomeSection } from '../../slack/memory-blocks';
import type { Database } from '../../store/database';
import { memoriesForRequest } from '../../store/memory-store';
import { createKnowledgeTools } from '../../tools/knowledge-tools';

/** How far back a backfill reads, at start and when threadwise joins a channel. */
const BACKFILL_DAYS = 30;

export interface KnowledgeWiring {
  app: { client: WebClient };
  bot: BotIdentity;
  workspace: SlackWorkspace;
  db: Database;
  clock: Clock;
  activity: Activity;
  logger: Logger;
  closers: Closers;
}

export interface BotKnowledge {
  directory: KnowledgeDirectory;
  /** For the runs: memories and the knowledge tools. */
  run: RunKnowledge;
  /** For registerKnowledgeListeners (slack-surfaces.ts). */
  listeners: KnowledgeListenerDependencies;
  /** App Home's memories section for this person. */
  homeSection(teamId: string, userId: string): Promise<unknown[]>;
  /** Starts the backfill of the channels threadwise is in, in the background; returns at once. */
  backfillInBackground(): void;
}

export function wireKnowledge(config: Pick<Config, 'slack' | 'approval'>, wiring: KnowledgeWiring): BotKnowledge {
  const { app, bot, workspace, db, clock, activity, closers } = wiring;
  const logger = wiring.logger.child({ component: 'knowledge' });
  const admins = config.approval.adminUsers;
  const directory = createSlackDirectory(app.client, { clock, workspaceUrl: workspace.url });
  // Backfills wait out 429s themselves, on the clock: this client rejects them instead of sleeping on its own timers.
  const backfillApi = new WebClient(config.slack.botToken, {
    slackApiUrl: config.slack.apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: 20_000,
  });
  const announce = createMemoryAnnouncer(app.client);
  const now = () => clock.now();
  const isAdmin = (userId: string) => admins.includes(userId);

  const run: RunKnowledge = {
    async memories(asker, { includePersonal }) {
      const found = await memoriesForRequest(db, { teamId: asker.teamId, channelId: asker.channelId, userId: asker.userId });
      return includePersonal ? found : found.filter((memory) => memory.scope === 'channel');
    },
    tools: (asker) =>
      createKnowledgeTools({
        db,
        directory,
        request: { teamId: asker.teamId, channelId: asker.channelId, userId: asker.userId, isAdmin: isAdmin(asker.userId) },
        now,
        onRemembered: (memory) => announce({ channelId: asker.channelId, threadTs: asker.threadTs, userId: asker.userId }, memory),
      }),
  };

  const homeSection = async (teamId: string, userId: string) =>
    renderMemoriesHomeSection(await homeMemories(db, directory, { teamId, userId, isAdmin: isAdmin(userId) }));

  const listeners: KnowledgeListenerDependencies = {
    db,
    directory,
    botUserId: bot.userId,
    admins,
    backfillApi,
    backfillDays: BACKFILL_DAYS,
    clock,
    logger,
    track: (work) => activity.track(work),
    async refreshHome(teamId, userId, view) {
      const blocks = replaceMemoriesSection(view?.blocks ?? [], await homeSection(teamId, userId));
      await app.client.views.publish({ user_id: userId, view: { type: 'home', blocks: blocks.slice(0, 100) as never } });
    },
  };

  const stopping = new AbortController();
  closers.add('knowledge backfill', () => stopping.abort());

  return {
    directory,
    run,
    listeners,
    homeSection,
    backfillInBackground() {
      const work = (async () => {
        const ids = await channelsOfTheBot(backfillApi, clock);
        const done = await backfillChannels(backfillApi, db, ids, {
          teamId: workspace.teamId ?? '',
          clock,
          botUserId: bot.userId,
          days: BACKFILL_DAYS,
          signal: stopping.signal,
          onError: (channel, error) => logger.warn('could not backfill a channel', { channel, error }),
        });
        const messages = [...done.values()].reduce((sum, result) => sum + result.messages, 0);
        if (done.size > 0) logger.info('channels backfilled', { channels: done.size, messages });
      })();
      activity.track(work).catch((error: unknown) => {
        if (!stopping.signal.aborted) logger.warn('could not backfill the channels threadwise is in', { error });
      });
    },
  };
}

/** The public and private channels threadwise is a member of (users.conversations, every page). */
async function channelsOfTheBot(client: WebClient, clock: Clock): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await callWithRateLimit(() => client.users.conversations({ types: 'public_channel,private_channel', exclude_archived: true, limit: 200, cursor }), clock);
    for (const channel of page.channels ?? []) if (channel.id) ids.push(channel.id);
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return ids;
}
