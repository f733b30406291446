/**
 * Slack's agent view (the AI-app side pane): when someone opens a thread with threadwise, suggest prompts for the
 * channel they came from (its settings' prompts, or the defaults) and title the thread; whenever Slack says which
 * channel they are looking at (thread started, context changed, app context changed), remember it, so their DMs
 * with threadwise follow that channel's settings.
 */
import type { WebClient } from '@slack/web-api';
import { DEFAULT_SUGGESTED_PROMPTS, type EffectiveChannelSettings } from '../config/channel-settings';
import type { Logger } from '../logging/logger';
import type { Database } from '../store/database';
import type { AppContextChangedPayload, AssistantThreadEventPayload, EventEnvelopePayload, SlackEventPayloads } from './payload-schemas';
import { saveUserChannelContext } from '../store/user-context-store';

export interface AgentViewDependencies {
  db: Database;
  settingsFor: (teamId: string, channelId: string) => Promise<EffectiveChannelSettings>;
  logger: Logger;
}

type AgentViewEvent = 'assistant_thread_started' | 'assistant_thread_context_changed' | 'app_context_changed';

export interface AgentViewHost {
  event<Name extends AgentViewEvent>(
    name: Name,
    listener: (args: { event: SlackEventPayloads[Name]; body: Pick<EventEnvelopePayload, 'team_id'>; client: WebClient }) => Promise<void>,
  ): unknown;
}

/** The channel Slack says the person is looking at, from either event shape. */
function contextChannelOf(event: AssistantThreadEventPayload | AppContextChangedPayload): string | undefined {
  if (event.type !== 'app_context_changed') return event.assistant_thread.context?.channel_id || undefined;
  const entities = event.context?.entities ?? [];
  for (const entity of entities) {
    if (entity.type === 'slack#/types/channel_id' && typeof entity.value === 'string') return entity.value;
    const message = entity.value as { channel_id?: string } | undefined;
    if (entity.type === 'slack#/types/message_context' && typeof message?.channel_id === 'string') return message.channel_id;
  }
  return undefined;
}

export function registerAgentView(app: AgentViewHost, deps: AgentViewDependencies): void {
  const remember = async (teamId: string, userId: string | undefined, channelId: string | undefined) => {
    // Only a channel's settings apply: a DM or another app's view leaves the last channel in place.
    if (!userId || !channelId || channelId.startsWith('D')) return;
    await saveUserChannelContext(deps.db, { teamId, userId }, channelId).catch((error) =>
      deps.logger.warn('could not remember the channel a user is looking at', { user: userId, channel: channelId, error }),
    );
  };

  app.event('assistant_thread_started', async ({ event, body, client }) => {
    const thread = event.assistant_thread;
    const teamId = thread.context?.team_id ?? body.team_id ?? '';
    const from = contextChannelOf(event);
    await remember(teamId, thread.user_id, from);
    const settings = from ? await deps.settingsFor(teamId, from) : undefined;
    const channelName = from
      ? await client.conversations
          .info({ channel: from })
          .then((info) => info.channel?.name)
          .catch(() => undefined)
      : undefined;
    const prompts = (settings?.suggestedPrompts ?? DEFAULT_SUGGESTED_PROMPTS).slice(0, 4);
    if (prompts.length > 0) {
      await client.assistant.threads
        .setSuggestedPrompts({
          channel_id: thread.channel_id,
          thread_ts: thread.thread_ts,
          title: channelName ? `Suggestions for #${channelName}` : 'Try asking',
          prompts,
        })
        .catch((error) => deps.logger.warn('could not set suggested prompts', { channel: thread.channel_id, error }));
    }
    await client.assistant.threads
      .setTitle({ channel_id: thread.channel_id, thread_ts: thread.thread_ts, title: channelName ? `Asked from #${channelName}` : 'New question' })
      .catch((error) => deps.logger.warn('could not set the thread title', { channel: thread.channel_id, error }));
  });

  app.event('assistant_thread_context_changed', async ({ event, body }) => {
    const thread = event.assistant_thread;
    await remember(thread.context?.team_id ?? body.team_id ?? '', thread.user_id, contextChannelOf(event));
  });

  app.event('app_context_changed', async ({ event, body }) => {
    await remember(body.team_id ?? '', event.user, contextChannelOf(event));
  });
}
