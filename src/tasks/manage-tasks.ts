/**
 * Creating and changing tasks, with every check a sentence: the schedule (schedule.ts), the per-person cap, who
 * may delete, pause or resume (authorize.ts). Used by the schedule_task tool, the Slack buttons and `/ask tasks`.
 */
import type { Clock } from '../core/clock';
import type { Database } from '../store/database';
import { changeTaskState, insertTask, type TaskRow } from '../store/task-store';
import { mayChangeTask, type TaskAction } from './authorize';
import { describeTask } from './describe-schedule';
import { checkSchedule, nextDueAfter, type ScheduleProblem } from './schedule';
import { scheduleOf } from './task-schedule-of';

/** Where a task is being scheduled and by whom: what the current ToolContext does not carry. */
export interface TaskContext {
  teamId: string;
  channelId: string;
  threadTs: string;
  /** The person asking: the task's owner, each occurrence runs as them. */
  userId: string;
  /** Their Slack time zone (users.info `tz`); the workspace's TIMEZONE when Slack gave none. */
  timeZone: string;
}

export interface TaskLimits {
  /** TASK_MIN_INTERVAL_MINUTES */
  minIntervalMinutes: number;
  /** TASK_MAX_PER_PERSON */
  maxPerPerson: number;
}

export interface ScheduleRequest {
  prompt: string;
  when: string;
  /** A zone the person named ("9:00 New York time"); otherwise theirs. */
  timeZone?: string;
}

export type ScheduleOutcome =
  | { ok: true; task: TaskRow; /** "every Monday at 09:00 Europe/Paris — next: Mon 1 Dec, 09:00" */ description: string }
  | { ok: false; problem: ScheduleProblem | 'empty_prompt' | 'over_cap'; message: string };

export async function scheduleTask(
  deps: { db: Database; clock: Clock; limits: TaskLimits },
  context: TaskContext,
  request: ScheduleRequest,
): Promise<ScheduleOutcome> {
  const prompt = request.prompt.trim();
  if (!prompt) return { ok: false, problem: 'empty_prompt', message: 'The task has no prompt: say what should be done at that time.' };
  const now = deps.clock.now();
  const zone = request.timeZone?.trim() || context.timeZone;
  const checked = checkSchedule(request.when, zone, now, { minIntervalMinutes: deps.limits.minIntervalMinutes });
  if (!checked.ok) return checked;
  const inserted = await insertTask(
    deps.db,
    {
      teamId: context.teamId,
      channelId: context.channelId,
      threadTs: context.threadTs,
      ownerId: context.userId,
      prompt,
      scheduleKind: checked.schedule.kind,
      schedule: checked.schedule.expression,
      timeZone: checked.schedule.timeZone,
      nextDueAt: checked.nextDue,
    },
    { maxPerPerson: deps.limits.maxPerPerson, now: new Date(now) },
  );
  if (!inserted.ok) {
    return {
      ok: false,
      problem: 'over_cap',
      message: `<@${context.userId}> already has ${inserted.open} scheduled tasks, the most one person may have (TASK_MAX_PER_PERSON is ${deps.limits.maxPerPerson}). Delete one first: \`/ask tasks\` lists them.`,
    };
  }
  return { ok: true, task: inserted.task, description: describeTask(checked.schedule, checked.nextDue, now) };
}

export type ChangeOutcome = { ok: true; task: TaskRow; changed: boolean; message: string } | { ok: false; message: string; task?: TaskRow };

/** Delete, pause or resume, by the owner or an admin; the sentence says what happened (or why not). */
export async function changeTask(
  deps: { db: Database; clock: Clock; admins: readonly string[] },
  request: { taskId: number; userId: string; action: TaskAction },
): Promise<ChangeOutcome> {
  const now = deps.clock.now();
  const to = request.action === 'delete' ? 'deleted' : request.action === 'pause' ? 'paused' : 'active';
  const result = await changeTaskState(deps.db, {
    taskId: request.taskId,
    actor: request.userId,
    to,
    now: new Date(now),
    authorize: (task) => mayChangeTask(task, request.userId, deps.admins, request.action),
    nextDue: (task) => nextDueAfter(scheduleOf(task), now),
  });
  if (!result.ok) return result;
  const what = describeTask(scheduleOf(result.task), result.task.nextDueAt, now);
  const message =
    request.action === 'delete'
      ? `Deleted the task (${what.replace(/ — next: .*$/, '')}); it will not run again.`
      : request.action === 'pause'
        ? `Paused the task (${what.replace(/ — next: .*$/, '')}); resume it to carry on.`
        : `Resumed the task: ${what}.`;
  return { ok: true, task: result.task, changed: result.changed, message };
}
