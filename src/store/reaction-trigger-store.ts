import { and, eq } from 'drizzle-orm';
import type { Database } from './database';
import { reactionTriggerClaims } from './schema';
import { recordQuestion, type NewPendingQuestion } from './delivery-store';

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

/**
 * Claims a reaction trigger and records the question it asks, in one transaction: a claim never exists without its
 * question (which a crash cannot lose: the next start posts or finds it, and admits it), nor a question twice.
 */
export async function claimReactionTriggerQuestion(
  db: Database,
  claim: { channelId: string; messageTs: string; reaction: string; userId: string },
  question: NewPendingQuestion,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inTx = tx as unknown as Database;
    if (!(await claimReactionTrigger(inTx, claim))) return false;
    await recordQuestion(inTx, { ...question, reaction: { name: claim.reaction, messageTs: claim.messageTs } });
    return true;
  });
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
