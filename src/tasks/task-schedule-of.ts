import type { TaskRow } from '../store/task-store';
import type { TaskSchedule } from './schedule';

/** A stored task's schedule, as src/tasks/ computes with it. */
export function scheduleOf(task: Pick<TaskRow, 'scheduleKind' | 'schedule' | 'timeZone'>): TaskSchedule {
  return { kind: task.scheduleKind, expression: task.schedule, timeZone: task.timeZone };
}
