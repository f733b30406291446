/**
 * schedule_task(prompt, when): the model schedules work for later in this thread, once or repeating, run as the
 * person asking. It needs what the ToolContext does not carry (team, channel, thread, the asker and their time
 * zone): the composition root builds one per run with createScheduleTaskTool. Refusals (too frequent, in the past,
 * unreadable, over the per-person cap) come back as sentences for the model to pass on.
 */
import { z } from 'zod';
import type { Clock } from '../core/clock';
import type { Database } from '../store/database';
import type { TaskRow } from '../store/task-store';
import { scheduleTask, type TaskContext, type TaskLimits } from '../tasks/manage-tasks';
import type { Tool } from './tool';

export interface ScheduleTaskDependencies {
  db: Database;
  clock: Clock;
  limits: TaskLimits;
  /** Who asks, where; one per run. */
  context: TaskContext;
  /** Posts the announcement (schedule in words, next run, a Delete button) in the thread; see slack/task-blocks.ts. */
  announce?(task: TaskRow, description: string): Promise<void>;
  /** A task was written through this process: the scheduler looks at the due times again. */
  onScheduled?(task: TaskRow): void;
}

const parameters = z.object({
  prompt: z
    .string()
    .min(1)
    .describe('What to do each time, written as a request to yourself with everything needed, e.g. "Summarise what happened in #incidents since the last run".'),
  when: z
    .string()
    .min(1)
    .describe(
      'An ISO 8601 local date-time for a single run ("2026-12-01T09:00"), or a 5-field cron expression for a repeating one ("0 9 * * 1" = Mondays 09:00; minute hour day-of-month month day-of-week). Local to timeZone.',
    ),
  timeZone: z
    .string()
    .optional()
    .describe('An IANA time zone ("America/New_York") only when the person named one; otherwise leave it out and their own Slack time zone is used.'),
});

type Arguments = z.infer<typeof parameters>;

export function createScheduleTaskTool(deps: ScheduleTaskDependencies): Tool<Arguments> {
  return {
    name: 'schedule_task',
    description: [
      'Schedule a task: a prompt you will run later in this thread, as the person asking, once or on a repeating schedule, and post its result here.',
      'Use it for reminders ("remind me Friday at 10 to check the rollout"), digests and recurring summaries.',
      `The person's time zone is ${deps.context.timeZone}; convert relative times ("tomorrow at 10") to a local date-time in it.`,
      'Returns the schedule in words and the next run, or a sentence saying why it could not be scheduled (too frequent, in the past, unreadable, too many tasks) to tell the person.',
      'The person can list, pause and delete tasks with `/ask tasks`.',
    ].join(' '),
    parameters,

    describeProgress() {
      return 'scheduling the task…';
    },

    async execute(args, context) {
      context.signal.throwIfAborted();
      const outcome = await scheduleTask({ db: deps.db, clock: deps.clock, limits: deps.limits }, deps.context, args);
      if (!outcome.ok) return `Not scheduled: ${outcome.message}`;
      context.recordActivity(`scheduled task ${outcome.task.id}`);
      deps.onScheduled?.(outcome.task);
      let announced = '';
      if (deps.announce) {
        announced = await deps.announce(outcome.task, outcome.description).then(
          () => ' It is announced in the thread with a Delete button.',
          () => ' (The announcement could not be posted; the task is scheduled all the same.)',
        );
      }
      const kind = outcome.task.scheduleKind === 'once' ? 'Scheduled a one-off task' : 'Scheduled a repeating task';
      return `${kind} (id ${outcome.task.id}): ${outcome.description}.${announced} Each run posts its answer in this thread as <@${outcome.task.ownerId}>'s request. Tell the person when it will run, in their words.`;
    },
  };
}
