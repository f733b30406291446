/**
 * What the knowledge tools ask Slack at search time: whether a channel is public (conversations.info), who is in
 * it (conversations.members), people's names (users.info) and messages' permalinks (chat.getPermalink). Each is
 * cached briefly; membership is refreshed at once by member_joined_channel / member_left_channel
 * (onMembershipEvent). A failed lookup is never cached and never grants access.
 */
import { createBoundedCache, type BoundedCache } from '../core/bounded-cache';
import { systemClock, type Clock } from '../core/clock';
import { callWithRateLimit, type KnowledgeSlackApi } from './slack-api';

interface ChannelFacts {
  id: string;
  name?: string;
  /** A public channel: anyone in its workspace may read it. */
  isPublic: boolean;
  /** A direct message or a group DM. */
  isDirect: boolean;
}

export interface KnowledgeDirectory {
  /** The channel's facts, or undefined when Slack does not answer (then nobody is granted access through it). */
  channel(id: string): Promise<ChannelFacts | undefined>;
  /** Whether the person is a member of the conversation; false when Slack does not answer. */
  isMember(channelId: string, userId: string): Promise<boolean>;
  /** The same, undefined when Slack does not answer: for callers that say so rather than refuse in silence. */
  membership(channelId: string, userId: string): Promise<boolean | undefined>;
  userName(userId: string): Promise<string | undefined>;
  permalink(channelId: string, ts: string, threadTs?: string): Promise<string | undefined>;
  /** member_joined_channel / member_left_channel: that channel's member list is asked again next time. */
  onMembershipEvent(event: unknown): MembershipChange | undefined;
}

interface MembershipChange {
  channelId: string;
  userId: string;
  joined: boolean;
}

export interface DirectoryOptions {
  clock?: Clock;
  /** How long a channel's members and facts are trusted; default 2 minutes. */
  ttlMs?: number;
  /** https://<workspace>.slack.com/ (auth.test's url): permalinks are built from it when chat.getPermalink fails. */
  workspaceUrl?: string;
}

const NAME_TTL_MS = 60 * 60_000;
const PERMALINK_TTL_MS = 24 * 60 * 60_000;

export function createSlackDirectory(api: KnowledgeSlackApi, options: DirectoryOptions = {}): KnowledgeDirectory {
  const clock = options.clock ?? systemClock;
  const ttlMs = options.ttlMs ?? 2 * 60_000;
  const now = () => clock.now();
  const channels = createBoundedCache<string, Promise<ChannelFacts | undefined>>({ maxEntries: 5_000, ttlMs, now });
  const members = createBoundedCache<string, Promise<Set<string> | undefined>>({ maxEntries: 2_000, ttlMs, now });
  const names = createBoundedCache<string, Promise<string | undefined>>({ maxEntries: 20_000, ttlMs: NAME_TTL_MS, now });
  const links = createBoundedCache<string, Promise<string | undefined>>({ maxEntries: 20_000, ttlMs: PERMALINK_TTL_MS, now });
  const call = <T>(fn: () => Promise<T>) => callWithRateLimit(fn, clock, { maxWaits: 2 });

  const membership = async (channelId: string, userId: string): Promise<boolean | undefined> => {
    const list = await cached(members, channelId, async () => {
      const all = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await call(() => api.conversations.members({ channel: channelId, limit: 1000, cursor }));
        for (const member of page.members ?? []) all.add(member);
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
      return all;
    });
    return list?.has(userId);
  };

  return {
    channel: (id) =>
      cached(channels, id, async () => {
        const { channel } = await call(() => api.conversations.info({ channel: id }));
        if (!channel) return undefined;
        const isDirect = Boolean(channel.is_im || channel.is_mpim);
        return { id, name: channel.name ?? undefined, isPublic: !isDirect && channel.is_private === false, isDirect };
      }),

    isMember: async (channelId, userId) => (await membership(channelId, userId)) ?? false,
    membership,

    userName: (userId) =>
      cached(names, userId, async () => {
        const { user } = await call(() => api.users.info({ user: userId }));
        return user?.profile?.display_name || user?.profile?.real_name || user?.real_name || user?.name || undefined;
      }),

    permalink: (channelId, ts, threadTs) =>
      cached(links, `${channelId}/${ts}`, async () => {
        const found = await call(() => api.chat.getPermalink({ channel: channelId, message_ts: ts })).catch(() => undefined);
        return found?.permalink ?? canonicalPermalink(options.workspaceUrl, channelId, ts, threadTs);
      }),

    onMembershipEvent(event) {
      const change = parseMembershipEvent(event);
      if (change) members.delete(change.channelId);
      return change;
    },
  };
}

/** member_joined_channel / member_left_channel → who, where; undefined for anything else. */
function parseMembershipEvent(event: unknown): MembershipChange | undefined {
  if (!event || typeof event !== 'object') return undefined;
  const { type, channel, user } = event as { type?: unknown; channel?: unknown; user?: unknown };
  if (type !== 'member_joined_channel' && type !== 'member_left_channel') return undefined;
  if (typeof channel !== 'string' || typeof user !== 'string' || !channel || !user) return undefined;
  return { channelId: channel, userId: user, joined: type === 'member_joined_channel' };
}

/** https://<workspace>.slack.com/archives/C…/p<ts without the point>, with the thread for a reply. */
function canonicalPermalink(workspaceUrl: string | undefined, channelId: string, ts: string, threadTs?: string): string | undefined {
  if (!workspaceUrl) return undefined;
  const base = workspaceUrl.endsWith('/') ? workspaceUrl : `${workspaceUrl}/`;
  const link = `${base}archives/${channelId}/p${ts.replace('.', '')}`;
  return threadTs && threadTs !== ts ? `${link}?thread_ts=${threadTs}&cid=${channelId}` : link;
}

/** A cached lookup whose failure or empty answer is dropped again, so the next call asks Slack anew. */
function cached<V>(cache: BoundedCache<string, Promise<V | undefined>>, key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
  let pending = cache.get(key);
  if (!pending) {
    const loading = load().catch(() => undefined);
    pending = loading;
    cache.set(key, loading);
    void loading.then((value) => {
      if (value === undefined && cache.get(key) === loading) cache.delete(key);
    });
  }
  return pending;
}
