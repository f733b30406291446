/**
 * The thread as Slack has it: its messages (every page of conversations.replies), the names of the people in it and
 * the channel it is in. A run reads its thread through this (runs/seams.ts, ThreadSource).
 */
import type { WebClient } from '@slack/web-api';
import type { ChannelInfo } from '../context';
import type { SlackMessage } from '../conversation';
import type { ThreadSource } from '../runs/seams';
import { createBoundedCache } from '../core/bounded-cache';

/** Names and channel purposes are asked again after this: a renamed person shows up renamed within the hour. */
const CACHE_TTL_MS = 60 * 60_000;

/** Every message of a thread, all pages (conversations.replies returns at most `limit` per call). */
async function readThreadMessages(client: WebClient, channel: string, threadTs: string): Promise<SlackMessage[]> {
  const messages: SlackMessage[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.conversations.replies({ channel, ts: threadTs, limit: 200, cursor, include_all_metadata: true });
    messages.push(...((page.messages ?? []) as SlackMessage[]));
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return messages;
}

/**
 * Display names by user id, cached (names change rarely): bounded, and refreshed after a while. `known` answers at
 * once from what was already resolved (the names of the thread a run just read), for places that cannot wait.
 */
function createNameResolver(client: WebClient, now: () => number) {
  const cache = createBoundedCache<string, Promise<string | undefined>>({ maxEntries: 20_000, ttlMs: CACHE_TTL_MS, now });
  const resolved = createBoundedCache<string, string>({ maxEntries: 20_000, ttlMs: CACHE_TTL_MS, now });
  const lookup = (id: string) => {
    let pending = cache.get(id);
    if (!pending) {
      pending = client.users
        .info({ user: id })
        .then((result) => {
          const user = result.user;
          const name = user?.profile?.display_name || user?.profile?.real_name || user?.real_name || user?.name || undefined;
          if (name) resolved.set(id, name);
          return name;
        })
        .catch(() => {
          cache.delete(id); // try again next time; the id itself stands in meanwhile
          return undefined;
        });
      cache.set(id, pending);
    }
    return pending;
  };
  const names = async (userIds: string[]) => {
    const names = new Map<string, string>();
    await Promise.all(
      userIds.map(async (id) => {
        const name = await lookup(id);
        if (name) names.set(id, name);
      }),
    );
    return names;
  };
  return { names, known: (userId: string) => resolved.get(userId) };
}


function createChannelResolver(client: WebClient, now: () => number): (channel: string) => Promise<ChannelInfo> {
  const cache = createBoundedCache<string, Promise<ChannelInfo>>({ maxEntries: 5_000, ttlMs: CACHE_TTL_MS, now });
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

export interface SlackThreadSource extends ThreadSource {
  /** A display name already resolved (by reading a thread it is in); undefined rather than a Slack call. */
  knownName(userId: string): string | undefined;
}

export function createSlackThreadSource(client: WebClient, options: { now?: () => number } = {}): SlackThreadSource {
  const now = options.now ?? Date.now;
  const names = createNameResolver(client, now);
  const channel = createChannelResolver(client, now);
  return {
    messages: (channelId: string, threadTs: string) => readThreadMessages(client, channelId, threadTs),
    names: names.names,
    knownName: names.known,
    channel,
  };
}
