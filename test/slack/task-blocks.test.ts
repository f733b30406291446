/** The tasks' Slack surfaces as data: the announcement's Delete button, the list's buttons by who looks, the notices. */
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../../src/store/task-store';
import {
  appHomeTaskSection,
  TASK_DELETE_ACTION_ID,
  TASK_PAUSE_ACTION_ID,
  TASK_RESUME_ACTION_ID,
  taskAnnouncement,
  taskAnnouncementEnded,
  taskIdOfAction,
  taskListBlocks,
  taskPausedNotice,
} from '../../src/slack/task-blocks';

const NOW = Date.parse('2026-11-26T10:00:00Z');
const row = (overrides: Partial<TaskRow> = {}): TaskRow => ({
  id: 7,
  teamId: 'T1',
  channelId: 'C1',
  threadTs: '1700000000.000100',
  ownerId: 'U0OWNER',
  prompt: 'Summarise #incidents <here> & now',
  scheduleKind: 'cron',
  schedule: '0 9 * * 1',
  timeZone: 'Europe/Paris',
  nextDueAt: new Date('2026-11-30T08:00:00Z'),
  state: 'active',
  pausedReason: null,
  consecutiveFailures: 0,
  lastResult: null,
  lastError: null,
  lastRunAt: null,
  announcementTs: null,
  changedBy: 'U0OWNER',
  createdAt: new Date(NOW),
  updatedAt: new Date(NOW),
  ...overrides,
});
const buttons = (blocks: unknown[]) =>
  blocks.flatMap((block: any) => (block.type === 'actions' ? block.elements.map((e: any) => `${e.action_id}:${e.value}`) : []));
const texts = (blocks: unknown[]) => blocks.map((block: any) => block.text?.text ?? block.elements?.map((e: any) => e.text).join(' ') ?? '').join('\n');

describe('task blocks', () => {
  it('announces the task in words with a Delete button', () => {
    const { text, blocks } = taskAnnouncement(row(), NOW);
    expect(text).toBe('Scheduled: every Monday at 09:00 Europe/Paris — next: Mon 30 Nov, 09:00');
    expect(texts(blocks)).toContain(':calendar: *Scheduled* every Monday at 09:00 Europe/Paris — next: Mon 30 Nov, 09:00\n> Summarise #incidents &lt;here&gt; &amp; now');
    expect(buttons(blocks)).toEqual([`${TASK_DELETE_ACTION_ID}:7`]);
    expect(JSON.stringify(blocks)).toContain('"confirm"');
  });

  it('shows a deleted task without buttons', () => {
    const { blocks } = taskAnnouncementEnded(row(), { how: 'deleted', by: 'U0ADMIN', at: NOW });
    expect(buttons(blocks)).toEqual([]);
    expect(texts(blocks)).toContain(':wastebasket: Deleted by <@U0ADMIN> on Thu 26 Nov, 11:00 — it will not run again.');
  });

  it('lists tasks with schedule, next run and last result; buttons only for the owner or an admin', () => {
    const tasks = [row(), row({ id: 8, ownerId: 'U0ELSE', state: 'paused', pausedReason: 'failures', lastResult: 'failed', consecutiveFailures: 3, lastError: 'timed out' })];
    const owner = taskListBlocks([tasks[0]!], { userId: 'U0OWNER', admins: [], now: NOW });
    expect(owner.text).toBe('Your scheduled tasks (1)');
    expect(texts(owner.blocks)).toContain('*every Monday at 09:00 Europe/Paris* in <#C1>\nNext run: Mon 30 Nov, 09:00 · Last result: not run yet');
    expect(buttons(owner.blocks)).toEqual([`${TASK_PAUSE_ACTION_ID}:7`, `${TASK_DELETE_ACTION_ID}:7`]);

    const admin = taskListBlocks(tasks, { userId: 'U0ADMIN', admins: ['U0ADMIN'], now: NOW });
    expect(admin.text).toBe("Scheduled tasks (2, everyone's)");
    expect(texts(admin.blocks)).toContain('· <@U0ELSE>\nNext run: paused (it failed repeatedly) · Last result: failed 3 times in a row: timed out');
    expect(buttons(admin.blocks)).toEqual([`${TASK_PAUSE_ACTION_ID}:7`, `${TASK_DELETE_ACTION_ID}:7`, `${TASK_RESUME_ACTION_ID}:8`, `${TASK_DELETE_ACTION_ID}:8`]);

    // Someone else sees the row (e.g. in a shared list) but gets no buttons.
    expect(buttons(taskListBlocks([tasks[0]!], { userId: 'U0STRANGER', admins: [], now: NOW }).blocks)).toEqual([]);
    expect(taskListBlocks([], { userId: 'U0OWNER', admins: [], now: NOW }).text).toBe('No scheduled tasks.');
    expect(appHomeTaskSection([tasks[0]!], { userId: 'U0OWNER', admins: [], now: NOW })[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Your scheduled tasks' } });
  });

  it('says in the thread that a task paused itself, with Resume and Delete', () => {
    const { text, blocks } = taskPausedNotice(row({ state: 'paused', consecutiveFailures: 3, lastError: 'the model timed out' }), NOW);
    expect(text).toBe(
      ':pause_button: I paused this scheduled task (every Monday at 09:00 Europe/Paris) after its last 3 runs failed (last: the model timed out). <@U0OWNER> can resume it once the cause is fixed, or delete it.',
    );
    expect(buttons(blocks)).toEqual([`${TASK_RESUME_ACTION_ID}:7`, `${TASK_DELETE_ACTION_ID}:7`]);
  });

  it('reads a button value back as a task id', () => {
    expect(taskIdOfAction('7')).toBe(7);
    expect(taskIdOfAction('x')).toBeUndefined();
    expect(taskIdOfAction(undefined)).toBeUndefined();
  });
});
