/**
 * Reaction triggers: a channel's settings map an emoji to a request (":memo:" → "summarise this thread"); adding it
 * to a message asks threadwise that request in the message's thread, on behalf of the person who reacted. Once per
 * message and emoji, however often it is added or Slack delivers the event (a row in the database decides, on any
 * replica). Emoji the channel did not map do nothing. The claim is written with the recorded question
 * (pending_questions) in one transaction: a crash after it leaves a question the next start asks, never a claim
 * that asks nothing.
 */
import type { WebClient } from '@slack/web-api';
import type { BotIdentity } from '../conversation';
import type { EffectiveChannelSettings } from '../config/channel-settings';
import type { Logger } from '../logging/logger';
import type { Intake } from '../runs/intake';
import type { Database } from '../store/database';
import { claimReactionTriggerQuestion } from '../store/reaction-trigger-store';
import { forgetRefusedQuestion, newQuestion, postRecordedQuestion } from './ask-on-behalf';
import type { EventEnvelopePayload, ReactionAddedPayload } from './payload-schemas';

export interface ReactionTriggerDependencies {
  db: Database;
  intake: Intake;
  bot: BotIdentity;
  settingsFor: (teamId: string, channelId: string) => Promise<EffectiveChannelSettings>;
  logger: Logger;
  /** This process, as the owner of the questions it records. */
  replicaId: string;
}

export interface ReactionEventHost {
  event(name: 'reaction_added', listener: (args: { event: ReactionAddedPayload; body: Pick<EventEnvelopePayload, 'team_id'>; client: WebClient }) => Promise<void>): unknown;
}

export function registerReactionTriggers(app: ReactionEventHost, deps: ReactionTriggerDependencies): void {
  app.event('reaction_added', async ({ event, body, client }) => {
    if (event.item.type !== 'message' || event.user === deps.bot.userId) return;
    const channelId = event.item.channel;
    const messageTs = event.item.ts;
    const teamId: string = body.team_id ?? '';
    const reaction = event.reaction.split('::')[0]!; // skin tones ("thumbsup::skin-tone-2") map as the base emoji
    const settings = await deps.settingsFor(teamId, channelId);
    const request = settings.reactionTriggers[reaction];
    if (!request) return;
    const claim = { channelId, messageTs, reaction, userId: event.user };
    // The thread first (reading only): the question is recorded with the claim, ready to post.
    let threadTs: string;
    try {
      const replies = await client.conversations.replies({ channel: channelId, ts: messageTs, limit: 1 });
      const first = replies.messages?.[0];
      threadTs = first?.thread_ts ?? first?.ts ?? messageTs;
    } catch (error) {
      deps.logger.warn('could not read the thread of a reaction trigger', { channel: channelId, ts: messageTs, reaction, error });
      return;
    }
    const question = newQuestion(deps, { channel: channelId, threadTs, userId: event.user, teamId, question: request, via: `with :${reaction}:`, engages: false });
    if (!(await claimReactionTriggerQuestion(deps.db, claim, question))) {
      deps.logger.debug('reaction trigger already used on this message', { channel: channelId, ts: messageTs, reaction });
      return;
    }
    const recorded = { ...question, reaction: { name: reaction, messageTs } };
    try {
      const asked = await postRecordedQuestion(client, deps, recorded);
      deps.logger.info('reaction trigger asked', { channel: channelId, threadTs, reaction, by: event.user, questionTs: asked.ts });
    } catch (error) {
      // Refused by Slack: nothing was asked, the claim is given back and the next reaction may try again. Without
      // Slack's answer the question stays recorded, and is finished once this process is gone.
      const code = await forgetRefusedQuestion(deps, recorded, error);
      deps.logger.warn('could not ask for a reaction trigger', { channel: channelId, ts: messageTs, reaction, code, ...(code ? {} : { error }) });
    }
  });
}
