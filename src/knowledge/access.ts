/**
 * Who may read what, decided when a search runs: a message is readable by the asker when its channel is public in
 * the asker's workspace, or when the asker is a member of it (conversations.members, through the directory). The
 * tools compute the readable channels first and search only inside them, so a conversation the asker cannot read
 * never reaches ranking, counting or limits: no hit, no total, no hint.
 */
import { mapConcurrently } from '../core/map-concurrently';
import type { Database } from '../store/database';
import { knowledgeChannels } from '../store/schema';
import type { KnowledgeDirectory } from './directory';

export interface Asker {
  teamId: string;
  userId: string;
}

export interface ReadableChannel {
  id: string;
  /** The channel's name without "#", when Slack gave one (DMs have none). */
  name?: string;
  isDirect: boolean;
}

/** Lookups at once: most are answered from the directory's cache. */
const CONCURRENCY = 8;

/** The indexed channels this person may read, by Slack's rules as they are now. */
export async function readableChannels(db: Database, directory: KnowledgeDirectory, asker: Asker): Promise<ReadableChannel[]> {
  const known = await db.select({ id: knowledgeChannels.channelId, teamId: knowledgeChannels.teamId, name: knowledgeChannels.name }).from(knowledgeChannels);
  return filterReadable(directory, known, asker);
}

/** The conversations among these (each with the workspace it belongs to) that the person may read. */
export async function filterReadable(
  directory: KnowledgeDirectory,
  channels: ReadonlyArray<{ id: string; teamId: string; name?: string | null }>,
  asker: Asker,
): Promise<ReadableChannel[]> {
  const verdicts = await mapConcurrently(channels, CONCURRENCY, async (channel): Promise<ReadableChannel | undefined> => {
    const facts = await directory.channel(channel.id);
    if (!facts) return undefined;
    const readable = (facts.isPublic && channel.teamId === asker.teamId) || (await directory.isMember(channel.id, asker.userId));
    return readable ? { id: channel.id, name: facts.name ?? channel.name ?? undefined, isDirect: facts.isDirect } : undefined;
  });
  return verdicts.filter((v): v is ReadableChannel => v !== undefined);
}

/**
 * The channel a tool argument names ("#incidents", "incidents", "C0123", "<#C0123|incidents>"), among the channels
 * the person may read only: a channel they cannot read is not found, exactly like one that does not exist.
 */
export function findReadableChannel(readable: readonly ReadableChannel[], argument: string): ReadableChannel | undefined {
  const mention = /^<#([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(argument.trim());
  const wanted = (mention?.[1] ?? argument).trim().replace(/^#/, '');
  if (!wanted) return undefined;
  return readable.find((c) => c.id === wanted) ?? readable.find((c) => c.name?.toLowerCase() === wanted.toLowerCase());
}

/** "#incidents", or "a direct message" for a DM. */
export function channelLabel(channel: ReadableChannel): string {
  if (channel.isDirect) return channel.name ? `a group DM (${channel.name})` : 'a direct message';
  return `#${channel.name ?? channel.id}`;
}
