/**
 * Daily spend limits (DAILY_LIMIT_USER, DAILY_LIMIT_CHANNEL, in US dollars per UTC day): a question from a user, or
 * in a channel, that has already spent its limit today is not answered — no model call — and is told, in the
 * thread, when the limit resets. A scheduled task's occurrence obeys its owner's and its channel's limits the same
 * way (app/bot/scheduled-tasks.ts). Pure: today's spend comes from store/spend-limit-store.ts, read in the intake's
 * transaction. A run already under way finishes, so a day's spend can pass the limit by what the runs in flight cost.
 */
import { formatUsd } from '../core/model-prices';
import type { TodaysSpend } from '../store/spend-limit-store';
import type { Trigger } from './trigger';

export interface DailyLimits {
  /** USD per user per UTC day; 0: no limit. */
  userUsd: number;
  channelUsd: number;
}

export interface LimitRefusal {
  reason: 'over_daily_limit';
  message: string;
  /** Said in the thread, not only to the person: the others there should know why nobody answers. */
  inThread: true;
}

export const hasDailyLimits = (limits: DailyLimits | undefined): limits is DailyLimits => Boolean(limits && (limits.userUsd > 0 || limits.channelUsd > 0));

/** A limit that today's spend has reached (and an admin has not lifted): whose, how much was spent, of how much. */
export interface DailyLimitReached {
  scope: 'user' | 'channel';
  spentUsd: number;
  limitUsd: number;
}

/** The first limit `subject` has reached today, the person's before the channel's; undefined: it may spend more. */
export function dailyLimitReached(limits: DailyLimits | undefined, subject: { userId: string; channelId: string }, spend: TodaysSpend): DailyLimitReached | undefined {
  if (!hasDailyLimits(limits)) return undefined;
  const userSpent = spend.byUser.get(subject.userId) ?? 0;
  if (limits.userUsd > 0 && userSpent >= limits.userUsd && !spend.lifted.has(`user:${subject.userId}`)) {
    return { scope: 'user', spentUsd: userSpent, limitUsd: limits.userUsd };
  }
  const channelSpent = spend.byChannel.get(subject.channelId) ?? 0;
  if (limits.channelUsd > 0 && channelSpent >= limits.channelUsd && !spend.lifted.has(`channel:${subject.channelId}`)) {
    return { scope: 'channel', spentUsd: channelSpent, limitUsd: limits.channelUsd };
  }
  return undefined;
}

export function limitRefusalFor(limits: DailyLimits | undefined, trigger: Trigger, spend: TodaysSpend, now: Date): LimitRefusal | undefined {
  const reached = dailyLimitReached(limits, trigger, spend);
  if (!reached) return undefined;
  const used = `${formatUsd(reached.spentUsd)} of ${formatUsd(reached.limitUsd)}`;
  const resets = describeReset(now);
  return {
    reason: 'over_daily_limit',
    inThread: true,
    message:
      reached.scope === 'user'
        ? `Sorry <@${trigger.userId}>, you’ve used today’s budget for my answers (${used}), so I won’t answer this one. The limit resets ${resets}; if it can’t wait, an admin can lift it for today.`
        : `Sorry, this channel has used today’s budget for my answers (${used}), so I won’t answer this one. The limit resets ${resets}; if it can’t wait, an admin can lift it for today.`,
  };
}

/** "at midnight UTC (in about 3 hours)". */
export function describeReset(now: Date): string {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const minutes = Math.max(1, Math.round((next - now.getTime()) / 60_000));
  const wait = minutes < 60 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(minutes / 60)} hour${Math.round(minutes / 60) === 1 ? '' : 's'}`;
  return `at midnight UTC (in about ${wait})`;
}
