import { sql } from 'drizzle-orm';
import type { Database } from './db';
import { claimedMessages, slackEvents } from './schema';

/**
 * True the first time an event id is seen, false for Slack's retries of it. The insert is the check, so two
 * replicas receiving the same retry cannot both win.
 */
export async function claimEvent(db: Database, eventId: string): Promise<boolean> {
  const inserted = await db.insert(slackEvents).values({ eventId }).onConflictDoNothing().returning({ id: slackEvents.eventId });
  return inserted.length === 1;
}

/** True the first time a message is claimed for an answer: one message may arrive as app_mention and as message. */
export async function claimMessage(db: Database, channelId: string, messageTs: string): Promise<boolean> {
  const inserted = await db
    .insert(claimedMessages)
    .values({ channelId, messageTs })
    .onConflictDoNothing()
    .returning({ ts: claimedMessages.messageTs });
  return inserted.length === 1;
}

/** Forget dedupe records older than Slack's retry horizon (it retries for minutes, not days). */
export async function pruneDedupeRecords(db: Database, olderThanHours = 48): Promise<void> {
  const cutoff = sql`now() - make_interval(hours => ${olderThanHours})`;
  await db.delete(slackEvents).where(sql`${slackEvents.receivedAt} < ${cutoff}`);
  await db.delete(claimedMessages).where(sql`${claimedMessages.claimedAt} < ${cutoff}`);
}
