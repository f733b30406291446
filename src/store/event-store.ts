import { sql } from 'drizzle-orm';
import type { Database } from './database';
import { claimedMessages, slackEvents } from './schema';

/**
 * For each event id, in order: true the first time it is seen, false for Slack's retries of it (and for a repeat
 * within the same list). The insert is the check, so two replicas receiving the same retry cannot both win.
 */
export async function claimEvents(db: Database, eventIds: readonly string[]): Promise<boolean[]> {
  const distinct = [...new Set(eventIds)].sort(); // one order for every replica: concurrent inserts cannot deadlock
  if (distinct.length === 0) return [];
  const inserted = await db
    .insert(slackEvents)
    .values(distinct.map((eventId) => ({ eventId })))
    .onConflictDoNothing()
    .returning({ id: slackEvents.eventId });
  return firstClaims(eventIds, new Set(inserted.map((row) => row.id)));
}

export interface MessageKey {
  channelId: string;
  messageTs: string;
}

/**
 * For each message, in order: true the first time it is claimed for an answer. One message may arrive as
 * app_mention and as message (two event ids); its (channel, ts) decides.
 */
export async function claimMessages(db: Database, messages: readonly MessageKey[]): Promise<boolean[]> {
  const keyOf = (message: MessageKey) => JSON.stringify([message.channelId, message.messageTs]);
  const distinct = [...new Map(messages.map((message) => [keyOf(message), message])).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  if (distinct.length === 0) return [];
  const inserted = await db
    .insert(claimedMessages)
    .values(distinct.map(([, { channelId, messageTs }]) => ({ channelId, messageTs })))
    .onConflictDoNothing()
    .returning({ channelId: claimedMessages.channelId, messageTs: claimedMessages.messageTs });
  return firstClaims(messages.map(keyOf), new Set(inserted.map(keyOf)));
}

/** True where a key was inserted now, for its first occurrence in the list only. */
function firstClaims(keys: readonly string[], inserted: ReadonlySet<string>): boolean[] {
  const seen = new Set<string>();
  return keys.map((key) => {
    const first = !seen.has(key);
    seen.add(key);
    return first && inserted.has(key);
  });
}

/** Forget dedupe records older than Slack's retry horizon (it retries for minutes, not days). */
export async function pruneDedupeRecords(db: Database, olderThanHours = 48): Promise<void> {
  const cutoff = sql`now() - make_interval(hours => ${olderThanHours})`;
  await db.delete(slackEvents).where(sql`${slackEvents.receivedAt} < ${cutoff}`);
  await db.delete(claimedMessages).where(sql`${claimedMessages.claimedAt} < ${cutoff}`);
}
