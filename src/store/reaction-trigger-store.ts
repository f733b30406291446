import { and, eq } from 'drizzle-orm';
import type { Database } from './database';
import { reactionTriggerClaims } from './schema';

/**
 * Claims a reaction trigger on one message: true for the first claim of this (message, emoji) ever, false for every
 * later one — a second person reacting, the same person re-adding it, Slack delivering the event twice.
 */
export async function claimReactionTrigger(
  db: Database,
  claim: { channelId: string; messageTs: string; reaction: string; userId: string },
): Promise<boolean> {
  const inserted = await db.insert(reactionTriggerClaims).values(claim).onConflictDoNothing().returning({ at: reactionTriggerClaims.claimedAt });
  return inserted.length === 1;
}

/** Gives a claim back when its run could not even be asked for (Slack refused the question message). */
export async function releaseReactionTrigger(db: Database, claim: { channelId: string; messageTs: string; reaction: string }): Promise<void> {
  await db
    .delete(reactionTriggerClaims)
    .where(
      and(
        eq(reactionTriggerClaims.channelId, claim.channelId),
        eq(reactionTriggerClaims.messageTs, claim.messageTs),
        eq(reactionTriggerClaims.reaction, claim.reaction),
      ),
    );
}
