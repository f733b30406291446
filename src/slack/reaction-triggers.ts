/**
 * Reaction triggers: a channel's settings map an emoji to a request (":memo:" → "summarise this thread"); adding it
 * to a message asks threadwise that request in the message's thread, on behalf of the person who reacted. Once per
 * message and emoji, however often it is added or Slack delivers the event (a row in the database decides, on any
 * replica). Emoji the channel did not map do nothing.
 */
import type { WebClient } from '@slack/web-api';
import type { BotIdentity } from '../conversation';
import type { EffectiveChannelSettings } from '../config/channel-settings';
import type { Logger } from '../logging/logger';
import type { Intake } from '../runs/intake';
import type { Database } from '../store/database';
import { claimReactionTrigger, releaseReactionTrigger } from '../store/reaction-trigger-store';
import { askOnBehalf } from './ask-on-behalf';

export interface ReactionTriggerDependencies {
  db: Database;
  intake: Intake;
  bot: BotIdentity;
  settingsFor: (teamId: string, channelId: string) => Promise<EffectiveChannelSettings>;
  logger: Logger;
}

export interface ReactionEventHost {
  event(name: 'reaction_added', listener: (args: { event: any; body: any; client: WebClient }) => Promise<void>): unknown;
}

export function registerReactionTriggers(app: ReactionEventHost, deps: ReactionTriggerDependencies): void {
  app.event('reaction_added', async ({ event, body, client }) => {
    if (event.item?.type !== 'message' || !event.user || event.user === deps.bot.userId) return;
    const channelId: string = event.item.channel;
    const messageTs: string = event.item.ts;
    const teamId: string = body.team_id ?? '';
    const reaction = String(event.reaction ?? '').split('::')[0]!; // skin tones ("thumbsup::skin-tone-2") map as the base emoji
    const settings = await deps.settingsFor(teamId, channelId);
    const request = settings.reactionTriggers[reaction];
    if (!request) return;
    const claim = { channelId, messageTs, reaction, userId: event.user as string };
    if (!(await claimReactionTrigger(deps.db, claim))) {
      deps.logger.debug('reaction trigger already used on this message', { channel: channelId, ts: messageTs, reaction });
      return;
    }
    try {
      const replies = await client.conversations.replies({ channel: channelId, ts: messageTs, limit: 1 });
      const first = replies.messages?.[0];
      const threadTs = first?.thread_ts ?? first?.ts ?? messageTs;
      const asked = await askOnBehalf(client, deps.intake, { channel: channelId, threadTs, userId: event.user, teamId, question: request, via: `with :${reaction}:`, engages: false });
      deps.logger.info('reaction trigger asked', { channel: channelId, threadTs, reaction, by: event.user, questionTs: asked.ts });
    } catch (error) {
      // Nothing was asked: the next reaction may try again.
      await releaseReactionTrigger(deps.db, claim).catch(() => {});
      deps.logger.warn('could not ask for a reaction trigger', { channel: channelId, ts: messageTs, reaction, error });
    }
  });
}
