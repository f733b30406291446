import type { WebClient } from '@slack/web-api';
import type { SlackMessage } from '../conversation';

/** Every message of a thread, all pages (conversations.replies returns at most `limit` per call). */
export async function readThreadMessages(client: WebClient, channel: string, threadTs: string): Promise<SlackMessage[]> {
  const messages: SlackMessage[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.conversations.replies({ channel, ts: threadTs, limit: 200, cursor, include_all_metadata: true });
    messages.push(...((page.messages ?? []) as SlackMessage[]));
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return messages;
}

/** Display names by user id, cached for the life of the process (names change rarely; a restart refreshes). */
export function createNameResolver(client: WebClient): (userIds: string[]) => Promise<Map<string, string>> {
  const cache = new Map<string, Promise<string | undefined>>();
  const lookup = (id: string) => {
    let pending = cache.get(id);
    if (!pending) {
      pending = client.users
        .info({ user: id })
        .then((result) => {
          const user = result.user;
          return user?.profile?.display_name || user?.profile?.real_name || user?.real_name || user?.name || undefined;
        })
        .catch(() => {
          cache.delete(id); // try again next time; the id itself stands in meanwhile
          return undefined;
        });
      cache.set(id, pending);
    }
    return pending;
  };
  return async (userIds) => {
    const names = new Map<string, string>();
    await Promise.all(
      userIds.map(async (id) => {
        const name = await lookup(id);
        if (name) names.set(id, name);
      }),
    );
    return names;
  };
}

export interface ChannelDetails {
  name?: string;
  purpose?: string;
  isDirectMessage: boolean;
}

export function createChannelResolver(client: WebClient): (channel: string) => Promise<ChannelDetails> {
  const cache = new Map<string, Promise<ChannelDetails>>();
  return (channel) => {
    let pending = cache.get(channel);
    if (!pending) {
      pending = client.conversations
        .info({ channel })
        .then(({ channel: info }) => ({
          name: info?.name,
          purpose: info?.purpose?.value || undefined,
          isDirectMessage: Boolean(info?.is_im) || channel.startsWith('D'),
        }))
        .catch(() => {
          cache.delete(channel);
          return { isDirectMessage: channel.startsWith('D') };
        });
      cache.set(channel, pending);
    }
    return pending;
  };
}
