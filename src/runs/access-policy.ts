import { and, count, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../store/db';
import { runs } from '../store/schema';
import type { Trigger } from '../slack/decide-trigger';

export interface AccessPolicy {
  /** Empty: every channel. */
  allowedChannels: string[];
  /** Empty: every user. */
  allowedUsers: string[];
  /** Questions per user per minute; 0 = no limit. */
  userRateLimitPerMinute: number;
}

export type AccessRefusal =
  | { reason: 'channel_not_allowed'; message: string }
  | { reason: 'user_not_allowed'; message: string }
  | { reason: 'rate_limited'; message: string };

/** Who may ask, and how often. Counted from the runs table, so the limit holds across replicas. */
export async function checkAccess(db: Database, policy: AccessPolicy, trigger: Trigger): Promise<AccessRefusal | undefined> {
  const isDirectMessage = trigger.channelId.startsWith('D');
  if (policy.allowedChannels.length > 0 && !isDirectMessage && !policy.allowedChannels.includes(trigger.channelId)) {
    return {
      reason: 'channel_not_allowed',
      message: 'Sorry, I’m not set up to answer in this channel. Ask the team that runs me to add it, or message me directly.',
    };
  }
  if (policy.allowedUsers.length > 0 && !policy.allowedUsers.includes(trigger.userId)) {
    return {
      reason: 'user_not_allowed',
      message: 'Sorry, I can only answer people on my access list. Ask the team that runs me to add you.',
    };
  }
  if (policy.userRateLimitPerMinute > 0) {
    const [row] = await db
      .select({ asked: count() })
      .from(runs)
      .where(and(eq(runs.triggerUserId, trigger.userId), gt(runs.createdAt, sql`now() - interval '1 minute'`)));
    if ((row?.asked ?? 0) >= policy.userRateLimitPerMinute) {
      return {
        reason: 'rate_limited',
        message: `You’ve asked me ${policy.userRateLimitPerMinute} questions in the last minute, which is my limit. Give me a minute and ask again.`,
      };
    }
  }
  return undefined;
}
