import { and, count, gt, inArray, ne, sql } from 'drizzle-orm';
import type { Database } from '../store/database';
import { runs } from '../store/schema';
import type { Trigger } from './trigger';
import type { DailyLimits, LimitRefusal } from './spend-limit';

export interface AccessPolicy {
  /** Empty: every channel. */
  allowedChannels: string[];
  /** Empty: every user. */
  allowedUsers: string[];
  /** DMs are answered whatever ALLOWED_CHANNELS says (they are not channels); false refuses them. Default true. */
  allowDirectMessages?: boolean;
  /** Questions per user per minute; 0 = no limit. */
  userRateLimitPerMinute: number;
  /** DAILY_LIMIT_USER / DAILY_LIMIT_CHANNEL; absent or 0: no limit. */
  dailyLimits?: DailyLimits;
}

export type AccessRefusal =
  | { reason: 'channel_not_allowed'; message: string }
  | { reason: 'user_not_allowed'; message: string }
  | { reason: 'rate_limited'; message: string }
  | LimitRefusal;

/**
 * Who may ask, and how often. `askedLastMinute` is how many questions of this user started a run in the last
 * minute (`countRecentQuestions`, plus those admitted since it was read).
 */
export function refusalFor(policy: AccessPolicy, trigger: Trigger, askedLastMinute: number): AccessRefusal | undefined {
  const isDirectMessage = trigger.channelId.startsWith('D');
  if (isDirectMessage && policy.allowDirectMessages === false) {
    return {
      reason: 'channel_not_allowed',
      message: 'Sorry, I don’t answer direct messages here. Mention me in a channel I’m in instead.',
    };
  }
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
  if (policy.userRateLimitPerMinute > 0 && askedLastMinute >= policy.userRateLimitPerMinute) {
    return {
      reason: 'rate_limited',
      message: `You’ve asked me ${policy.userRateLimitPerMinute} questions in the last minute, which is my limit. Give me a minute and ask again.`,
    };
  }
  return undefined;
}

/**
 * Runs started by each user in the last minute, from the runs table, so that the limit holds across replicas
 * (softly: two replicas admitting the same user's questions at the same instant each count only their own).
 */
export async function countRecentQuestions(db: Database, userIds: readonly string[]): Promise<Map<string, number>> {
  const distinct = [...new Set(userIds)];
  if (distinct.length === 0) return new Map();
  const rows = await db
    .select({ userId: runs.triggerUserId, asked: count() })
    .from(runs)
    .where(and(inArray(runs.triggerUserId, distinct), gt(runs.createdAt, sql`now() - interval '1 minute'`), ne(runs.status, 'refused'))) // a question turned away by a daily limit did not start an answer
    .groupBy(runs.triggerUserId);
  return new Map(rows.map((row) => [row.userId ?? '', row.asked]));
}
