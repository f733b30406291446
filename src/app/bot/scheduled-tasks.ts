/**
 * Scheduled tasks in the bot (issue 28): the scheduler that claims each due occurrence once and writes its run, the
 * schedule_task tool offered to each Slack run as its asker (their Slack time zone), the announcement in the thread,
 * and what happens around an occurrence's run — refused (and counted as a failure) when its owner left the workspace
 * or can no longer read the channel, skipped (not counted) when its owner or channel reached today's spend limit,
 * its result recorded however it ends (thrown, given up after repeated interruptions, cancelled), a one-off's
 * announcement closed, a task that paused itself saying so in its thread.
 */
import type { WebClient } from '@slack/web-api';
import type { Config } from '../../config';
import type { Activity } from '../../core/activity';
import { createBoundedCache } from '../../core/bounded-cache';
import type { Clock } from '../../core/clock';
import type { Logger } from '../../logging/logger';
import type { RunOutcome, RunRow } from '../../store/run-store';
import type { Database } from '../../store/database';
import { readTodaysSpend } from '../../store/spend-limit-store';
import { getTask, occurrenceOfRun, recordTaskAnnouncement, type OccurrenceOutcome, type TaskRow } from '../../store/task-store';
import { dailyLimitReached, describeReset, hasDailyLimits } from '../../runs/spend-limit';
import { RunInterrupted } from '../../runs/run-interrupted';
import { messageOf } from '../../core/errors';
import { formatUsd } from '../../core/model-prices';
import type { ThreadRow } from '../../store/thread-store';
import { occurrencePrompt } from '../../tasks/occurrence-prompt';
import { insertOccurrenceRuns, parseOccurrenceTrigger } from '../../tasks/occurrence-run';
import { createTaskScheduler, type TaskScheduler } from '../../tasks/scheduler';
import { scheduleOf } from '../../tasks/task-schedule-of';
import { createScheduleTaskTool } from '../../tools/schedule-task';
import type { Tool } from '../../tools';
import { taskAnnouncement, taskAnnouncementEnded, taskPausedNotice } from '../../slack/task-blocks';

type Execute = (run: RunRow, signal: AbortSignal) => Promise<RunOutcome | { status: 'waiting_approval' }>;

export interface ScheduledTaskParts {
  db: Database;
  client: WebClient;
  clock: Clock;
  logger: Logger;
  activity: Activity;
  replicaId: string;
  /** Whether the owner is in the channel (the knowledge directory's, cached); undefined when Slack cannot tell. */
  membership(channelId: string, userId: string): Promise<boolean | undefined>;
  /** The run worker should look now (an occurrence's run was written); bound late, the worker comes after. */
  wakeWorker(): void;
  /** Claims in flight at once: several on PostgreSQL's pool; one on the embedded database, which runs them in turn. */
  claimConcurrency?: number;
  /** Tests: how often an idle scheduler looks at the tasks' version counter. */
  checkEveryMs?: number;
  /**
   * Test-only: SIGKILL this process inside the first claim's transaction, before its batch's run rows are written, or
   * just after the batch committed (before any of its runs is handed to the worker).
   */
  killInClaimForTests?: 'before_run_row' | 'after_run_row';
}

export interface ScheduledTasks {
  scheduler: TaskScheduler;
  /** For the run executor (EdgeSeams). */
  scheduledRequest(run: RunRow): Promise<string | undefined>;
  runTools(thread: ThreadRow, run: RunRow): Promise<Tool[]>;
  /** Around the run executor: refuses an occurrence its owner may no longer run, records each occurrence's end. */
  wrapExecute(execute: Execute): Execute;
}

const TZ_CACHE_MS = 30 * 60_000;

export function wireScheduledTasks(config: Config, parts: ScheduledTaskParts): ScheduledTasks {
  const { db, client, clock, logger } = parts;
  const log = logger.child({ component: 'tasks' });
  const people = createBoundedCache<string, { deleted: boolean; tz?: string }>({ maxEntries: 2_000, ttlMs: TZ_CACHE_MS, now: () => clock.now() });

  const scheduler = createTaskScheduler({
    db,
    clock,
    owner: parts.replicaId,
    logger: log,
    enqueueOccurrences: (occurrences, tx) => {
      if (parts.killInClaimForTests === 'before_run_row') process.kill(process.pid, 'SIGKILL');
      return insertOccurrenceRuns(occurrences, tx);
    },
    onClaimed: () => {
      if (parts.killInClaimForTests === 'after_run_row') process.kill(process.pid, 'SIGKILL');
      parts.wakeWorker();
    },
    onPaused: async (task) => {
      await client.chat.postMessage({ channel: task.channelId, thread_ts: task.threadTs, ...taskPausedNotice(task, clock.now()) });
    },
    pauseAfterFailures: config.tasks.pauseAfterFailures,
    checkEveryMs: parts.checkEveryMs,
    claimConcurrency: parts.claimConcurrency,
    activity: parts.activity,
  });

  /** users.info, cached: the person's time zone and whether they left the workspace (undefined: Slack did not say). */
  async function person(userId: string, fresh = false): Promise<{ deleted: boolean; tz?: string } | undefined> {
    const cached = fresh ? undefined : people.get(userId);
    if (cached) return cached;
    try {
      const found = await client.users.info({ user: userId });
      const user = found.user as { deleted?: boolean; tz?: string } | undefined;
      const value = { deleted: user?.deleted === true, tz: user?.tz || undefined };
      people.set(userId, value);
      return value;
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error;
      if (code === 'user_not_found') return { deleted: true };
      log.debug('users.info failed; the workspace time zone is used', { userId, error });
      return undefined;
    }
  }

  const validZone = (zone: string | undefined) => {
    if (!zone) return undefined;
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return zone;
    } catch {
      return undefined;
    }
  };

  /** Why the owner may not run this occurrence now, as a sentence; undefined: they may. */
  async function refusal(task: TaskRow): Promise<string | undefined> {
    const owner = await person(task.ownerId, true);
    if (owner?.deleted) return `<@${task.ownerId}>, who scheduled it, is no longer in the workspace`;
    const { allowedUsers, allowedChannels } = config.slack;
    if (allowedUsers.length > 0 && !allowedUsers.includes(task.ownerId)) return `<@${task.ownerId}> is no longer on my access list`;
    const isDm = task.channelId.startsWith('D');
    if (allowedChannels.length > 0 && !isDm && !allowedChannels.includes(task.channelId)) return 'I am no longer set up to answer in this channel';
    if (isDm) return undefined;
    // Never taken as yes when Slack cannot tell: an occurrence runs with its owner's access.
    const member = await parts.membership(task.channelId, task.ownerId);
    if (member === undefined) return `I could not check with Slack that <@${task.ownerId}> can still read this channel, so this time it did not run`;
    if (!member) return `<@${task.ownerId}> can no longer read this channel`;
    return undefined;
  }

  /**
   * Why the owner's daily spend limit (or the channel's) stops this occurrence, as a sentence; undefined: it may run.
   * The limits a question in Slack obeys (runs/spend-limit.ts), read the same way, at the moment it would start.
   */
  async function overSpendLimit(task: TaskRow): Promise<string | undefined> {
    const limits = { userUsd: config.limits.dailyUserUsd, channelUsd: config.limits.dailyChannelUsd };
    if (!hasDailyLimits(limits)) return undefined;
    const spend = await readTodaysSpend(db, { userIds: [task.ownerId], channelIds: [task.channelId] });
    const reached = dailyLimitReached(limits, { userId: task.ownerId, channelId: task.channelId }, spend);
    if (!reached) return undefined;
    const used = `${formatUsd(reached.spentUsd)} of ${formatUsd(reached.limitUsd)}`;
    const whose = reached.scope === 'user' ? `<@${task.ownerId}>, who scheduled it, has` : 'this channel has';
    return `${whose} reached today’s spending limit for my answers (${used}). The limit resets ${describeReset(new Date(clock.now()))}; an admin can lift it for today`;
  }

  /** Tells the thread why this occurrence did not run; the sentence's ts, to record as the run's answer. */
  async function sayInThread(task: TaskRow, text: string): Promise<string[]> {
    const posted = await client.chat.postMessage({ channel: task.channelId, thread_ts: task.threadTs, text }).catch((error) => {
      log.warn('could not say in its thread why a scheduled occurrence did not run', { taskId: task.id, error });
      return undefined;
    });
    return posted?.ts ? [posted.ts] : [];
  }

  async function recordEnd(task: TaskRow, run: RunRow, outcome: OccurrenceOutcome, error?: string) {
    try {
      await scheduler.recordOccurrenceResult(task.id, outcome, { runId: run.id, error });
    } catch (failure) {
      log.warn('could not record how a scheduled occurrence ended', { taskId: task.id, runId: run.id, error: failure });
    }
    if (task.scheduleKind !== 'once') return;
    const current = await getTask(db, task.id).catch(() => undefined);
    if (current?.state === 'done' && current.announcementTs) {
      await client.chat
        .update({ channel: current.channelId, ts: current.announcementTs, ...taskAnnouncementEnded(current, { how: 'done', at: clock.now() }) })
        .catch((failure) => log.debug('could not update a done task’s announcement', { taskId: task.id, error: failure }));
    }
  }

  return {
    scheduler,

    async scheduledRequest(run) {
      if (!parseOccurrenceTrigger(run.triggerTs)) return undefined;
      const found = await occurrenceOfRun(db, run.id);
      if (!found) return undefined;
      const { task, occurrence } = found;
      return occurrencePrompt({ ownerId: task.ownerId, prompt: task.prompt, schedule: scheduleOf(task), dueAt: occurrence.dueAt, startedAt: clock.now() });
    },

    async runTools(thread, run) {
      // An occurrence does not schedule more tasks; a run without a person behind it has nobody to run them as.
      if (parseOccurrenceTrigger(run.triggerTs) || !run.triggerUserId) return [];
      const userId = run.triggerUserId;
      const timeZone = validZone((await person(userId))?.tz) ?? config.timeZone;
      return [
        createScheduleTaskTool({
          db,
          clock,
          limits: config.tasks,
          context: { teamId: run.teamId || thread.teamId || '', channelId: thread.channelId, threadTs: thread.threadTs, userId, timeZone },
          announce: async (task) => {
            const posted = await client.chat.postMessage({ channel: task.channelId, thread_ts: task.threadTs, ...taskAnnouncement(task, clock.now()) });
            if (posted.ts) await recordTaskAnnouncement(db, task.id, posted.ts);
          },
          onScheduled: () => scheduler.refresh(),
        }),
      ];
    },

    wrapExecute(execute) {
      return async (run, signal) => {
        if (!parseOccurrenceTrigger(run.triggerTs)) return execute(run, signal);
        const found = await occurrenceOfRun(db, run.id);
        if (!found) return execute(run, signal);
        const { task, occurrence } = found;
        if (run.answerTs.length === 0 && !occurrence.result) {
          const why = await refusal(task);
          if (why) {
            log.info('scheduled occurrence refused', { taskId: task.id, runId: run.id, reason: why });
            const answerTs = await sayInThread(task, `:warning: I did not run this scheduled task: ${why}.`);
            await recordEnd(task, run, 'failed', why);
            return { status: 'failed', error: `not run: ${why}`, answerTs };
          }
          // Like a question over the limit: no model call, and the thread is told why. Not the task's failure: it
          // does not count toward pausing it.
          const overLimit = await overSpendLimit(task);
          if (overLimit) {
            log.info('scheduled occurrence skipped: daily spend limit reached', { taskId: task.id, runId: run.id, ownerId: task.ownerId });
            const answerTs = await sayInThread(task, `:warning: I skipped this run of the scheduled task: ${overLimit}.`);
            await recordEnd(task, run, 'skipped', `skipped: ${overLimit}`);
            return { status: 'failed', error: `not run: ${overLimit}`, answerTs };
          }
        }
        // A person's Stop is not the task failing: it is skipped, and does not count toward pausing it (a Stop before
        // the run began is recorded by run-requests.ts).
        const stopped = () => recordEnd(task, run, 'skipped', 'cancelled by a user');
        let outcome: Awaited<ReturnType<Execute>>;
        try {
          outcome = await execute(run, signal);
        } catch (error) {
          // The worker records a thrown attempt as failed (or cancelled): so does the occurrence (or skipped).
          // Interrupted by a shutdown or a lost lease, it has not ended: whoever resumes it records how it does.
          const reason = signal.reason ?? (error instanceof RunInterrupted ? error : undefined);
          if (reason instanceof RunInterrupted && reason.kind === 'cancelled') await stopped();
          else if (!(reason instanceof RunInterrupted)) await recordEnd(task, run, 'failed', messageOf(error));
          throw error;
        }
        if (outcome.status === 'cancelled') await stopped();
        else if (outcome.status !== 'waiting_approval') {
          const ok = outcome.status === 'done';
          await recordEnd(task, run, ok ? 'ok' : 'failed', ok ? undefined : (outcome.error ?? outcome.status));
        }
        return outcome;
      };
    },
  };
}
