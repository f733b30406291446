/**
 * Slack in, for the knowledge tier: message events into the message index (new, edited, deleted), membership events
 * refreshing who may read a channel (and a backfill when threadwise itself joins one), and the Forget button of
 * memories (the announcement's and App Home's). The composition root calls registerKnowledgeListeners beside the
 * other listeners; Bolt runs every listener of an event, so the message listener here runs beside the one that
 * answers.
 */
import type { WebClient } from '@slack/web-api';
import type { Clock } from '../core/clock';
import type { Logger } from '../logging/logger';
import { backfillChannel } from '../knowledge/backfill';
import type { KnowledgeDirectory } from '../knowledge/directory';
import { applyMessageEvent } from '../knowledge/message-index';
import type { KnowledgeSlackApi } from '../knowledge/slack-api';
import type { Database } from '../store/database';
import { forgetMemory } from '../store/memory-store';
import { MEMORY_FORGET_ACTION_ID, parseForgetValue, renderMemoryForgotten } from './memory-blocks';

export interface KnowledgeListenerHost {
  event(name: string, listener: (args: { event: any; body: any; client: WebClient }) => Promise<void>): unknown;
  action(actionId: string, listener: (args: { ack(): Promise<void>; action: unknown; body: any; client: WebClient }) => Promise<void>): unknown;
}

export interface KnowledgeListenerDependencies {
  db: Database;
  directory: KnowledgeDirectory;
  /** threadwise's own user id: its messages are not indexed, and its joining a channel starts a backfill. */
  botUserId: string;
  /** ADMIN_USERS: may forget any channel memory. */
  admins: readonly string[];
  /** For backfills: a WebClient built with rejectRateLimitedCalls: true, so 429s are waited out on `clock`. */
  backfillApi: KnowledgeSlackApi;
  backfillDays: number;
  clock: Clock;
  logger: Logger;
  /** After a Forget click in App Home: publish the person's home again (`view`: the home view clicked in). */
  refreshHome?: (teamId: string, userId: string, view?: { blocks?: unknown[] }) => Promise<void>;
  /**
   * Registers work in flight (the app's activity tracker), so idle() covers indexing and backfills; the work is
   * returned unchanged. Default: untracked.
   */
  track?: <T>(work: Promise<T>) => Promise<T>;
}

export function registerKnowledgeListeners(app: KnowledgeListenerHost, deps: KnowledgeListenerDependencies): void {
  const track = deps.track ?? (<T>(work: Promise<T>) => work);
  app.event('message', async ({ event, body }) => {
    try {
      await track(applyMessageEvent(deps.db, event, { teamId: body?.team_id ?? '', botUserId: deps.botUserId }));
    } catch (error) {
      deps.logger.warn('could not index a message', { channel: event?.channel, error });
    }
  });

  const membership = async ({ event, body }: { event: any; body: any }) => {
    const change = deps.directory.onMembershipEvent(event);
    if (!change?.joined || change.userId !== deps.botUserId) return;
    // Joined a channel: its recent history becomes searchable. In the background: the event is acknowledged now.
    void track(backfillChannel(deps.backfillApi, deps.db, change.channelId, { teamId: body?.team_id ?? '', days: deps.backfillDays, clock: deps.clock, botUserId: deps.botUserId })).then(
      (result) => deps.logger.info('channel backfilled', { channel: change.channelId, ...result }),
      (error: unknown) => deps.logger.warn('could not backfill a channel', { channel: change.channelId, error }),
    );
  };
  app.event('member_joined_channel', membership);
  app.event('member_left_channel', membership);

  app.action(MEMORY_FORGET_ACTION_ID, async ({ ack, action, body, client }) => {
    await ack();
    const id = parseForgetValue((action as { value?: string }).value);
    const userId: string | undefined = body?.user?.id;
    const teamId: string = body?.team?.id ?? body?.user?.team_id ?? '';
    if (id === undefined || !userId) return;
    const channel: string | undefined = body?.channel?.id;
    const tell = (text: string) =>
      channel ? client.chat.postEphemeral({ channel, user: userId, text }).then(() => undefined, () => undefined) : Promise.resolve();
    const result = await forgetMemory(deps.db, { teamId, id, userId, isAdmin: deps.admins.includes(userId) });
    if (result.outcome === 'not_found') return tell(`M${id} is already forgotten.`);
    if (result.outcome === 'not_allowed') return tell(`Only <@${result.memory.authorId}> (who asked to remember it) or an admin can forget M${id}.`);
    deps.logger.info('memory forgotten', { memory: id, scope: result.memory.scope, by: userId });
    const messageTs: string | undefined = body?.message?.ts;
    if (channel && messageTs && !body?.container?.is_ephemeral) {
      await client.chat.update({ channel, ts: messageTs, ...renderMemoryForgotten(id, userId) } as never).catch(() => undefined);
    } else if (channel && body?.container?.is_ephemeral) {
      await tell(renderMemoryForgotten(id, userId).text);
    } else if (body?.view?.type === 'home') {
      await deps.refreshHome?.(teamId, userId, body.view).catch(() => undefined);
    }
  });
}
