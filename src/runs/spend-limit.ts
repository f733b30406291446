/**
 * Daily spend limits (DAILY_LIMIT_USER, DAILY_LIMIT_CHANNEL, in US dollars per UTC day): a question from a user, or
 * in a channel, that has already spent its limit today is not answered — no model call — and is told, in the
 * thread, when the limit resets. Pure: today's spend comes from store/spend-limit-store.ts, read in the intake's
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

export function limitRefusalFor(limits: DailyLimits | undefined, trigger: Trigger, spend: TodaysSpend, now: Date): LimitRefusal | undefined {
  if (!hasDailyLimits(limits)) return undefined;
  const resets = describeReset(now);
  const userSpent = spend.byUser.get(trigger.userId) ?? 0;
  if (limits.userUsd > 0 && userSpent >= limits.userUsd && !spend.lifted.has(`user:${trigger.userId}`)) {
    return {
      reason: 'over_daily_limit',
      inThread: true,
      message: `Sorry <@${trigger.userId}>, you’ve used today’s budget for my answers (${formatUsd(userSpent)} of ${formatUsd(limits.userUsd)}), so I won’t answer this one. The limit resets ${resets}; if it can’t wait, an admin can lift it for today.`,
    };
  }
  const channelSpent = spend.byChannel.get(trigger.channelId) ?? 0;
  if (limits.channelUsd > 0 && channelSpent >= limits.channelUsd && !spend.lifted.has(`channel:${trigger.channelId}`)) {
    return {
      reason: 'over_daily_limit',
      inThread: true,
      message: `Sorry, this channel has used today’s budget for my answers (${formatUsd(channelSpent)} of ${formatUsd(limits.channelUsd)}), so I won’t answer this one. The limit resets ${resets}; if it can’t wait, an admin can lift it for today.`,
    };
  }
  return undefined;
}

/** "at midnight UTC (in about 3 hours)". */
function describeReset(now: Date): string {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const minutes = Math.max(1, Math.round((next - now.getTime()) / 60_000));
  const wait = minutes < 60 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(minutes / 60)} hour${Math.round(minutes / 60) === 1 ? '' : 's'}`;
  return `at midnight UTC (in about ${wait})`;
}
