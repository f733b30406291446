import { and, eq, sql } from 'drizzle-orm';
import type { Database } from './database';
import { userAppContext } from './schema';

/** Remembers the channel a person is looking at (from Slack's agent-view context events). */
export async function saveUserChannelContext(db: Database, key: { teamId: string; userId: string }, channelId: string): Promise<void> {
  await db
    .insert(userAppContext)
    .values({ ...key, channelId })
    .onConflictDoUpdate({ target: [userAppContext.teamId, userAppContext.userId], set: { channelId, updatedAt: sql`now()` } });
}

/** The channel the person was last looking at, if Slack ever told us. */
export async function userChannelContext(db: Database, teamId: string, userId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ channelId: userAppContext.channelId })
    .from(userAppContext)
    .where(and(eq(userAppContext.teamId, teamId), eq(userAppContext.userId, userId)));
  return row?.channelId;
}
