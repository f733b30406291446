/**
 * What the model is told when a task's occurrence runs: that this is a scheduled run nobody is waiting on, when it
 * was due (and how late it starts, after downtime), and then the task's prompt as its owner wrote it.
 */
import { describeTask } from './describe-schedule';
import { formatDuration, formatLocal } from './local-time';
import type { TaskSchedule } from './schedule';

export interface OccurrencePromptInput {
  ownerId: string;
  prompt: string;
  schedule: TaskSchedule;
  dueAt: Date;
  /** When the run starts (the Clock's now). */
  startedAt: number;
  /** Beyond this, the start is called late (default: 2 minutes). */
  lateAfterMs?: number;
}

export function occurrencePrompt(input: OccurrencePromptInput): string {
  const zone = input.schedule.timeZone;
  const lateBy = input.startedAt - input.dueAt.getTime();
  const late =
    lateBy > (input.lateAfterMs ?? DEFAULT_LATE_AFTER_MS)
      ? ` It starts ${formatDuration(lateBy)} late (threadwise was not running at the due time): say so briefly if it matters for the answer.`
      : '';
  const how = input.schedule.kind === 'once' ? 'a one-off task' : `a repeating task (${describeTask(input.schedule, undefined)})`;
  return [
    `[Scheduled run] This is ${how} that <@${input.ownerId}> scheduled in this thread, due ${formatLocal(input.dueAt, zone, { now: input.startedAt })} (${zone}).${late}`,
    'Nobody is waiting for a reply in real time: do the task now and post the result in this thread; do not ask questions back. If something you need is missing, say what, and do what you can without it.',
    '',
    'The task:',
    input.prompt.trim(),
  ].join('\n');
}

export const DEFAULT_LATE_AFTER_MS = 2 * 60_000;
