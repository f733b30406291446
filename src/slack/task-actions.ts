/**
 * The tasks' buttons (Delete, Pause, Resume — on the announcement, in `/ask tasks`, on App Home) and `/ask tasks`
 * itself. Only the task's owner or an ADMIN_USERS member changes a task; anyone else is told who can. The host
 * types are the few methods used, by shape, so the composition root can hand in Bolt's App.
 */
import type { WebClient } from '@slack/web-api';
import type { KnownBlock } from '@slack/types';
import type { Clock } from '../core/clock';
import type { Logger } from '../logging/logger';
import type { Database } from '../store/database';
import { listTasks, type TaskRow } from '../store/task-store';
import type { TaskAction } from '../tasks/authorize';
import { seesEveryTask } from '../tasks/authorize';
import { changeTask } from '../tasks/manage-tasks';
import {
  TASK_DELETE_ACTION_ID,
  TASK_PAUSE_ACTION_ID,
  TASK_RESUME_ACTION_ID,
  appHomeTaskSection,
  taskAnnouncementEnded,
  taskIdOfAction,
  taskListBlocks,
} from './task-blocks';

export interface TaskActionDependencies {
  db: Database;
  clock: Clock;
  /** ADMIN_USERS: may change anyone's task and see every task. */
  admins: readonly string[];
  logger: Logger;
  /** A task changed through this process: the scheduler looks at the due times again. */
  onTaskChanged?(task: TaskRow): void;
  /** App Home shows the tasks: republish it for this user after a change made there. */
  onHomeChanged?(userId: string, client: WebClient): Promise<void>;
}

export interface TaskActionHost {
  action(actionId: string, listener: (args: { ack(): Promise<void>; action: unknown; body: any; client: WebClient }) => Promise<void>): unknown;
}

const ACTIONS: Array<[string, TaskAction]> = [
  [TASK_DELETE_ACTION_ID, 'delete'],
  [TASK_PAUSE_ACTION_ID, 'pause'],
  [TASK_RESUME_ACTION_ID, 'resume'],
];

export function registerTaskActions(app: TaskActionHost, deps: TaskActionDependencies): void {
  for (const [actionId, kind] of ACTIONS) {
    app.action(actionId, async ({ ack, action, body, client }) => {
      await ack();
      const taskId = taskIdOfAction((action as { value?: unknown })?.value);
      const userId: string | undefined = body?.user?.id;
      if (taskId === undefined || !userId) return;
      const channel: string | undefined = body?.channel?.id;
      const threadTs: string | undefined = body?.message?.thread_ts ?? body?.message?.ts;
      const tell = (text: string) =>
        channel
          ? client.chat.postEphemeral({ channel, user: userId, thread_ts: threadTs, text }).then(() => undefined, () => undefined)
          : Promise.resolve();

      const outcome = await changeTask({ db: deps.db, clock: deps.clock, admins: deps.admins }, { taskId, userId, action: kind });
      if (!outcome.ok) return tell(outcome.message);
      deps.logger.info('scheduled task changed', { taskId, action: kind, by: userId, changed: outcome.changed });
      if (outcome.changed) deps.onTaskChanged?.(outcome.task);
      if (kind === 'delete' && outcome.task.announcementTs) {
        await client.chat
          .update({ channel: outcome.task.channelId, ts: outcome.task.announcementTs, ...taskAnnouncementEnded(outcome.task, { how: 'deleted', by: userId, at: deps.clock.now() }) })
          .catch((error) => deps.logger.warn('could not update the task announcement', { taskId, error }));
      }
      if (body?.view?.type === 'home') await deps.onHomeChanged?.(userId, client).catch(() => undefined);
      else await tell(outcome.message);
    });
  }
}

/** `/ask tasks` — the person's tasks (an admin's: everyone's), as an ephemeral message with their buttons. */
export function tasksSubcommand(deps: Pick<TaskActionDependencies, 'db' | 'clock' | 'admins'>) {
  return async (args: {
    command: { user_id: string; team_id?: string };
    respond(message: { response_type: 'ephemeral'; text: string; blocks?: KnownBlock[] }): Promise<unknown>;
  }): Promise<void> => {
    const { user_id: userId, team_id: teamId = '' } = args.command;
    const tasks = await readTasksFor(deps.db, userId, teamId, deps.admins);
    const { text, blocks } = taskListBlocks(tasks, { userId, admins: deps.admins, now: deps.clock.now() });
    await args.respond({ response_type: 'ephemeral', text, blocks });
  };
}

/** The tasks a person sees: their own open ones, or, for an admin, everyone's in the workspace. */
function readTasksFor(db: Database, userId: string, teamId: string, admins: readonly string[]): Promise<TaskRow[]> {
  return seesEveryTask(userId, admins) ? listTasks(db, { teamId: teamId || undefined }) : listTasks(db, { ownerId: userId });
}

/** App Home's tasks section for this person (an admin's: everyone's in the workspace). */
export async function homeTaskSection(deps: Pick<TaskActionDependencies, 'db' | 'clock' | 'admins'>, userId: string, teamId: string): Promise<KnownBlock[]> {
  const tasks = await readTasksFor(deps.db, userId, teamId, deps.admins);
  return appHomeTaskSection(tasks, { userId, admins: deps.admins, now: deps.clock.now() });
}
