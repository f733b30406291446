/**
 * Scheduled tasks in Slack, as pure functions: the announcement in the thread (schedule in words, next run, a
 * Delete button), what it becomes once the task is deleted or done, the list for `/ask tasks` and the App Home
 * section (schedule, next run, last result, Delete and Pause/Resume for those allowed), and the sentence a task
 * that paused itself posts in its thread. Never pings anyone but names owners.
 */
import type { KnownBlock } from '@slack/types';
import type { TaskRow } from '../store/task-store';
import { mayChangeTask } from '../tasks/authorize';
import { describeTask } from '../tasks/describe-schedule';
import { formatLocal } from '../tasks/local-time';
import { scheduleOf } from '../tasks/task-schedule-of';
import { escapeMrkdwn } from './format/escape-mrkdwn';

export const TASK_DELETE_ACTION_ID = 'threadwise_task_delete';
export const TASK_PAUSE_ACTION_ID = 'threadwise_task_pause';
export const TASK_RESUME_ACTION_ID = 'threadwise_task_resume';

/** Rows shown at most in one list (Slack allows 50 blocks in a message, 100 in a Home tab). */
const MAX_LISTED = 15;
const PROMPT_CHARS = 300;

/** The announcement posted in the thread when a task is scheduled. */
export function taskAnnouncement(task: TaskRow, now: number): { text: string; blocks: KnownBlock[] } {
  const when = describeTask(scheduleOf(task), task.nextDueAt, now);
  return {
    text: `Scheduled: ${when}`,
    blocks: [
      section(`:calendar: *Scheduled* ${escapeMrkdwn(when)}\n${quote(task.prompt)}`),
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `Runs as <@${task.ownerId}> and answers in this thread. \`/ask tasks\` lists your tasks.` }],
      },
      {
        type: 'actions',
        block_id: `task_${task.id}`,
        elements: [deleteButton(task)],
      },
    ],
  };
}

/** The announcement once the task is over: no buttons, what happened. */
export function taskAnnouncementEnded(task: TaskRow, ended: { how: 'deleted' | 'done'; by?: string; at: number }): { text: string; blocks: KnownBlock[] } {
  const when = describeTask(scheduleOf(task), undefined, ended.at).replace(/ — next: .*$/, '');
  const line =
    ended.how === 'deleted'
      ? `:wastebasket: Deleted${ended.by ? ` by <@${ended.by}>` : ''} on ${formatLocal(ended.at, task.timeZone, { now: ended.at })} — it will not run again.`
      : ':white_check_mark: Done: it has run and has nothing left to do.';
  return {
    text: `Scheduled task ${ended.how}: ${when}`,
    blocks: [section(`:calendar: ~${escapeMrkdwn(when)}~\n${quote(task.prompt)}`), { type: 'context', elements: [{ type: 'mrkdwn', text: line }] }],
  };
}

export interface TaskListViewer {
  userId: string;
  admins: readonly string[];
  now: number;
}

/** `/ask tasks`: the viewer's tasks (an admin's list holds everyone's), each with its buttons. */
export function taskListBlocks(tasks: readonly TaskRow[], viewer: TaskListViewer): { text: string; blocks: KnownBlock[] } {
  const everyone = viewer.admins.includes(viewer.userId);
  if (tasks.length === 0) {
    return {
      text: 'No scheduled tasks.',
      blocks: [
        section(
          everyone
            ? 'Nobody has a scheduled task.'
            : 'You have no scheduled tasks. Ask me in a thread, e.g. “@threadwise every Monday at 9 summarise #incidents here” or “remind me tomorrow at 10 to check the rollout”.',
        ),
      ],
    };
  }
  const title = everyone ? `Scheduled tasks (${tasks.length}, everyone's)` : `Your scheduled tasks (${tasks.length})`;
  return { text: title, blocks: [section(`*${title}*`), ...taskRows(tasks, viewer, everyone)] };
}

/** The App Home's section: a header and the same rows. */
export function appHomeTaskSection(tasks: readonly TaskRow[], viewer: TaskListViewer): KnownBlock[] {
  const everyone = viewer.admins.includes(viewer.userId);
  const blocks: KnownBlock[] = [{ type: 'header', text: { type: 'plain_text', text: everyone ? 'Scheduled tasks (everyone’s)' : 'Your scheduled tasks' } }];
  if (tasks.length === 0) blocks.push(section('None. Ask me in a thread to do something later or every week, and it shows up here.'));
  else blocks.push(...taskRows(tasks, viewer, everyone));
  return blocks;
}

function taskRows(tasks: readonly TaskRow[], viewer: TaskListViewer, showOwner: boolean): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  for (const task of tasks.slice(0, MAX_LISTED)) {
    const schedule = describeTask(scheduleOf(task), undefined, viewer.now).replace(/ — next: .*$/, '');
    const next = task.state === 'active' && task.nextDueAt ? formatLocal(task.nextDueAt, task.timeZone, { now: viewer.now }) : stateWords(task);
    const last =
      task.lastResult === 'ok'
        ? `ok (${formatLocal(task.lastRunAt ?? viewer.now, task.timeZone, { now: viewer.now })})`
        : task.lastResult === 'failed'
          ? `failed${task.consecutiveFailures > 1 ? ` ${task.consecutiveFailures} times in a row` : ''}${task.lastError ? `: ${escapeMrkdwn(task.lastError.slice(0, 120))}` : ''}`
          : task.lastResult === 'skipped'
            ? `skipped (${formatLocal(task.lastRunAt ?? viewer.now, task.timeZone, { now: viewer.now })}): the daily spend limit was reached`
            : 'not run yet';
    const owner = showOwner ? ` · <@${task.ownerId}>` : '';
    blocks.push(
      section(
        `${quote(task.prompt)}\n*${escapeMrkdwn(schedule)}* in <#${task.channelId}>${owner}\nNext run: ${next} · Last result: ${last}`,
      ),
    );
    const allowed = mayChangeTask(task, viewer.userId, viewer.admins, 'delete').allowed;
    if (allowed) {
      const toggle =
        task.state === 'paused'
          ? button('Resume', TASK_RESUME_ACTION_ID, task)
          : task.state === 'active'
            ? button('Pause', TASK_PAUSE_ACTION_ID, task)
            : undefined;
      blocks.push({ type: 'actions', block_id: `task_row_${task.id}`, elements: toggle ? [toggle, deleteButton(task)] : [deleteButton(task)] });
    }
  }
  if (tasks.length > MAX_LISTED) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${tasks.length - MAX_LISTED} more; the operator console lists them all.` }] });
  }
  return blocks;
}

function stateWords(task: TaskRow): string {
  if (task.state === 'paused') return task.pausedReason === 'failures' ? 'paused (it failed repeatedly)' : 'paused';
  if (task.state === 'done') return 'none (done)';
  if (task.state === 'deleted') return 'none (deleted)';
  return 'none';
}

/** Posted in the task's thread when it paused itself. */
export function taskPausedNotice(task: TaskRow, now: number): { text: string; blocks: KnownBlock[] } {
  const schedule = describeTask(scheduleOf(task), undefined, now).replace(/ — next: .*$/, '');
  const text = `:pause_button: I paused this scheduled task (${schedule}) after its last ${task.consecutiveFailures} runs failed${
    task.lastError ? ` (last: ${task.lastError.slice(0, 200)})` : ''
  }. <@${task.ownerId}> can resume it once the cause is fixed, or delete it.`;
  return {
    text,
    blocks: [section(escapeMrkdwnExceptMentions(text)), { type: 'actions', block_id: `task_paused_${task.id}`, elements: [button('Resume', TASK_RESUME_ACTION_ID, task), deleteButton(task)] }],
  };
}

/** A button's value → the task id, or undefined for anything else. */
export function taskIdOfAction(value: unknown): number | undefined {
  const id = Number(value);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

function deleteButton(task: TaskRow) {
  return {
    type: 'button' as const,
    action_id: TASK_DELETE_ACTION_ID,
    text: { type: 'plain_text' as const, text: 'Delete' },
    style: 'danger' as const,
    value: String(task.id),
    confirm: {
      title: { type: 'plain_text' as const, text: 'Delete this task?' },
      text: { type: 'plain_text' as const, text: 'It will not run again.' },
      confirm: { type: 'plain_text' as const, text: 'Delete' },
      deny: { type: 'plain_text' as const, text: 'Keep it' },
    },
  };
}

function button(label: string, actionId: string, task: TaskRow) {
  return { type: 'button' as const, action_id: actionId, text: { type: 'plain_text' as const, text: label }, value: String(task.id) };
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: text.length > 2900 ? `${text.slice(0, 2899)}…` : text } };
}

function quote(prompt: string): string {
  const short = prompt.trim().length > PROMPT_CHARS ? `${prompt.trim().slice(0, PROMPT_CHARS - 1)}…` : prompt.trim();
  return escapeMrkdwn(short)
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/** Escapes the text but keeps `<@U…>` mentions working. */
function escapeMrkdwnExceptMentions(text: string): string {
  return escapeMrkdwn(text).replace(/&lt;@([UW][A-Z0-9]+)&gt;/g, '<@$1>');
}
