/**
 * kill -9 at several points of a scheduled task's occurrence, with threadwise as a real child process on one
 * PostgreSQL: inside the claim before its run row is written, right after the claim committed, and while the answer
 * is being posted. Each time a fresh process carries on, and the due time is answered exactly once.
 *
 * Needs TEST_DATABASE_URL (CI sets it); without it the suite is skipped with a note.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/app/database/open-database';
import { rowsOf, type DatabaseHandle } from '../../src/store/database';
import { insertTask } from '../../src/store/task-store';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { createScratchPostgres } from '../support/databases';
import { eventually } from '../support/eventually';
import { botEnvironment, killAll, MODEL_KEY, spawnBot, type BotProcess } from './support/bot-process';

const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) console.warn('[scheduled-task-kill.test] skipped: set TEST_DATABASE_URL to a PostgreSQL admin URL');

const CHANNEL = 'C0GENERAL';
const ANA = 'U0ANA';

describe.skipIf(!adminUrl)('kill -9 during a scheduled occurrence', { timeout: 300_000 }, () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let scratch: { url: string; drop(): Promise<void> };
  let database: DatabaseHandle;
  const bots: BotProcess[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack({ botName: 'threadwise' });
    model = await startFakeOpenAI({ apiKey: MODEL_KEY });
    slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
    slack.addChannel({ id: CHANNEL, name: 'general' });
    // An occurrence runs with its owner's access: Ana is in the channel.
    slack.setMembers(CHANNEL, [ANA]);
    scratch = await createScratchPostgres(adminUrl!);
    database = await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 2 });
  }, 120_000);
  afterAll(async () => {
    await killAll(bots);
    await database?.close();
    await scratch?.drop();
    await slack?.close();
    await model?.close();
  });

  const spawn = async (extra: Record<string, string> = {}) => {
    const bot = await spawnBot(botEnvironment(slack, model, { DATABASE_URL: scratch.url, RUN_LEASE_SECONDS: '4', ...extra }), 120_000);
    bots.push(bot);
    return bot;
  };
  const query = async <Row>(statement: ReturnType<typeof sql>) => rowsOf<Row>(await database.db.execute(statement));

  it('answers the due time exactly once', async () => {
    const parent = slack.addMessage(CHANNEL, { user: ANA, text: 'the rollout thread' });
    const inserted = await insertTask(
      database.db,
      {
        teamId: slack.teamId,
        channelId: CHANNEL,
        threadTs: parent.ts,
        ownerId: ANA,
        prompt: 'say how the rollout went',
        scheduleKind: 'once',
        schedule: '2026-01-01T00:00',
        timeZone: 'UTC',
        nextDueAt: new Date(Date.now() - 1_000),
      },
      { maxPerPerson: 10, now: new Date() },
    );
    if (!inserted.ok) throw new Error('task not inserted');
    const taskId = inserted.task.id;
    const occurrences = () => query<{ id: number; run_id: number | null }>(sql`select id, run_id from task_occurrences where task_id = ${taskId}`);
    const runs = () => query<{ id: number; status: string; attempts: number }>(sql`select id, status, attempts from runs where trigger_ts like ${`task:${taskId}:%`}`);

    // 1. Killed inside the claim, before the run row: the claim rolls back, nothing is left half-done.
    const first = await spawn({ THREADWISE_TEST_KILL_IN_TASK_CLAIM: 'before_run_row' });
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(await occurrences()).toHaveLength(0);
    expect(await runs()).toHaveLength(0);

    // 2. Killed right after the claim committed: the occurrence and its run exist, the run has not started.
    const second = await spawn({ THREADWISE_TEST_KILL_IN_TASK_CLAIM: 'after_run_row' });
    expect((await second.exited).signal).toBe('SIGKILL');
    expect(await occurrences()).toHaveLength(1);
    expect((await runs()).map((run) => run.status)).toEqual(['pending']);

    // 3. Killed while the answer is being posted: the model stalls mid-answer, part of it is in the thread.
    model.enqueue({ text: `Partial rollout notes (PARTIAL-RUN). ${'More detail follows here. '.repeat(40)}`, stallAfterChunks: 6 });
    const third = await spawn();
    await slack.waitFor(() => slack.botMessages(CHANNEL, parent.ts).some((m) => JSON.stringify([m.text, m.blocks]).includes('PARTIAL-RUN')), 60_000);
    third.kill('SIGKILL');
    await third.exited;
    expect((await runs()).map((run) => run.status)).toEqual(['running']);

    // 4. A fresh process takes the run over once its lease runs out, and answers.
    model.enqueue({ text: 'The rollout went fine (FINAL-ANSWER).' });
    await spawn();
    const [run] = await eventually(async () => {
      const found = await runs();
      return found[0]?.status === 'done' && found;
    }, { timeoutMs: 90_000 });
    const complete = slack
      .botMessages(CHANNEL, parent.ts)
      .filter((m) => JSON.stringify([m.text, m.blocks]).includes('FINAL-ANSWER') && JSON.stringify(m.blocks ?? []).includes('feedback_buttons'));
    expect(complete).toHaveLength(1);
    // The half-posted attempt is not left as a second answer.
    expect(slack.botMessages(CHANNEL, parent.ts).filter((m) => JSON.stringify(m.blocks ?? []).includes('feedback_buttons'))).toHaveLength(1);
    expect(run!.attempts).toBeGreaterThanOrEqual(2);
    expect(await occurrences()).toHaveLength(1);
    expect(await runs()).toHaveLength(1);
    const [task] = await query<{ state: string; last_result: string | null }>(sql`select state, last_result from scheduled_tasks where id = ${taskId}`);
    expect(task).toEqual({ state: 'done', last_result: 'ok' });
  });
});
