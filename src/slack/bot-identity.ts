/** Who the bot is in this workspace (auth.test): its user id for mentions, its bot id for its own messages. */
import type { WebClient } from '@slack/web-api';
import type { BotIdentity } from '../conversation';

export async function identifyBot(client: WebClient): Promise<BotIdentity> {
  const identity = await client.auth.test();
  return { userId: identity.user_id!, botId: identity.bot_id, name: identity.user ?? 'threadwise' };
}
