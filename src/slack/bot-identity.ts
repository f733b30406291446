/** Who the bot is in this workspace (auth.test): its user id for mentions, its bot id for its own messages. */
import type { WebClient } from '@slack/web-api';
import type { BotIdentity } from '../conversation';

/** The workspace auth.test names: its URL (https://acme.slack.com/, for permalinks) and its id. */
export interface SlackWorkspace {
  url?: string;
  teamId?: string;
}

/** The bot and its workspace, from one auth.test. */
export async function identifyBotAndWorkspace(client: WebClient): Promise<{ bot: BotIdentity; workspace: SlackWorkspace }> {
  const identity = await client.auth.test();
  return {
    bot: { userId: identity.user_id!, botId: identity.bot_id, name: identity.user ?? 'threadwise' },
    workspace: { url: identity.url || undefined, teamId: identity.team_id || undefined },
  };
}
