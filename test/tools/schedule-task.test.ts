/**
 * schedule_task on PGlite: the result tells the model the schedule in words and the next run, the announcement is
 * posted, refusals are sentences, and the task is the asker's, in their time zone unless they named another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/store/database';
import { getTask, type TaskRow } from '../../src/store/task-store';
import { createScheduleTaskTool } from '../../src/tools/schedule-task';
import type { ToolContext } from '../../src/tools/tool';
import type { TaskContext } from '../../src/tasks/manage-tasks';
import { testDatabases } from '../support/databases';
import { createFakeClock } from '../support/test-clock';

const unused = new Proxy({} as never, {
  get(_target, property) {
    throw new Error(`schedule_task must not use ${String(property)}`);
  },
});

function toolContext() {
  const activity: string[] = [];
  const context: ToolContext = {
    files: unused,
    skills: unused,
    signal: new AbortController().signal,
    tokensLeft: () => 100_000,
    showImage: () => {
      throw new Error('no images');
    },
    recordActivity: (entry) => activity.push(entry),
  };
  return { context, activity };
}

const asker: TaskContext = { teamId: 'T1', channelId: 'CTOOL', threadTs: '1700000000.000100', userId: 'U0ASKER', timeZone: 'Europe/Paris' };

describe('schedule_task', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await testDatabases()[0]!.open();
  }, 60_000);
  afterAll(async () => {
    await handle?.close();
  });

  it('schedules a repeating task, announces it and tells the model the schedule in words', async () => {
    const clock = createFakeClock(Date.parse('2026-11-26T10:00:00Z'));
    const announced: Array<[TaskRow, string]> = [];
    const scheduled: number[] = [];
    const tool = createScheduleTaskTool({
      db: handle.db,
      clock,
      limits: { minIntervalMinutes: 60, maxPerPerson: 2 },
      context: asker,
      announce: async (task, description) => void announced.push([task, description]),
      onScheduled: (task) => scheduled.push(task.id),
    });
    const { context, activity } = toolContext();
    const result = await tool.execute({ prompt: 'Summarise #incidents here', when: '0 9 * * 1' }, context);
    const id = scheduled[0]!;
    expect(result).toBe(
      `Scheduled a repeating task (id ${id}): every Monday at 09:00 Europe/Paris — next: Mon 30 Nov, 09:00. It is announced in the thread with a Delete button. Each run posts its answer in this thread as <@U0ASKER>'s request. Tell the person when it will run, in their words.`,
    );
    expect(announced.map(([task, words]) => [task.id, words])).toEqual([[id, 'every Monday at 09:00 Europe/Paris — next: Mon 30 Nov, 09:00']]);
    expect(activity).toEqual([`scheduled task ${id}`]);
    expect(await getTask(handle.db, id)).toMatchObject({ ownerId: 'U0ASKER', channelId: 'CTOOL', threadTs: '1700000000.000100', teamId: 'T1', state: 'active' });
  });

  it('uses a time zone the person named, and refuses with sentences', async () => {
    const clock = createFakeClock(Date.parse('2026-11-26T10:00:00Z'));
    const tool = createScheduleTaskTool({ db: handle.db, clock, limits: { minIntervalMinutes: 60, maxPerPerson: 2 }, context: { ...asker, userId: 'U0OTHER' } });
    const { context } = toolContext();
    expect(await tool.execute({ prompt: 'Check the rollout', when: '2026-11-27T10:00', timeZone: 'America/New_York' }, context)).toMatch(
      /^Scheduled a one-off task \(id \d+\): once, on Fri 27 Nov, 10:00 America\/New_York\. Each run/,
    );
    expect(await tool.execute({ prompt: 'x', when: '*/5 * * * *' }, context)).toMatch(/^Not scheduled: "\*\/5 \* \* \* \*" would run every 5 min/);
    expect(await tool.execute({ prompt: 'x', when: '2026-11-20T10:00' }, context)).toBe(
      'Not scheduled: Fri 20 Nov, 10:00 (Europe/Paris) has already passed: it is Thu 26 Nov, 11:00 there now. Pick a time in the future.',
    );
    expect(await tool.execute({ prompt: 'x', when: 'next tuesday' }, context)).toMatch(/^Not scheduled: I could not read "next tuesday" as a time/);
    expect(await tool.execute({ prompt: 'Second', when: '0 9 * * 2' }, context)).toMatch(/^Scheduled a repeating task/);
    expect(await tool.execute({ prompt: 'Third', when: '0 9 * * 3' }, context)).toBe(
      'Not scheduled: <@U0OTHER> already has 2 scheduled tasks, the most one person may have (TASK_MAX_PER_PERSON is 2). Delete one first: `/ask tasks` lists them.',
    );
  });
});
