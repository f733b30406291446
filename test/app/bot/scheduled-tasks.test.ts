/**
 * Scheduled tasks end to end: the real app (startThreadwise) against the fake Slack and the fake model over HTTP,
 * with a test Clock that moves only when the test moves it. The model calls schedule_task → the announcement with
 * its Delete button in the thread; the clock reaches the due time → the occurrence's answer, once, in that thread;
 * a restart across a due time → once, marked late; Delete by someone else refused, by the owner it stops the task;
 * `/ask tasks` lists it; an owner who left the workspace is refused and counted; an owner over today's spend limit
 * is skipped, not counted; a run given up after repeated interruptions is recorded as failed and counts; one a
 * person stops is skipped, not counted.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rowsOf } from '../../../src/store/database';
import { startHarness, ANA, BEN, CHANNEL, SIGNING_SECRET, type Harness } from '../../support/harness';
import { createFakeClock, type FakeClock } from '../../support/test-clock';
import { appHomeOpenedEvent, buttonClick, postSlackEvent } from '../../fakes/slack-signing';
import { eventually } from '../../support/eventually';
import type { ChatRequestBody } from '../../fakes/fake-openai';

const MINUTE = 60_000;
// 2026-11-24 09:00 UTC = 09:00 in Europe/London, the fake Slack's time zone for people.
const START = Date.UTC(2026, 10, 24, 9, 0, 0);

let h: Harness;
let clock: FakeClock;

beforeAll(async () => {
  clock = createFakeClock(START);
  h = await startHarness({
    // A $1 daily limit per person: what the fake model's answers cost stays far below it; one test spends past it.
    env: { ADMIN_USERS: 'U0ADMIN', TASK_MIN_INTERVAL_MINUTES: '60', CONSOLE_PORT: '0', DAILY_LIMIT_USER: '1' },
    // Timers on the test clock: long periods, so moving it by hours fires a handful of them, not thousands. The lease
    // is long too: its expiry is the database's real time, and nothing renews it while the test clock stands still.
    start: { clock, pollMs: 10 * MINUTE, leaseMs: 120_000, approvalSweepMs: 10 * MINUTE, housekeepingMs: 24 * 60 * MINUTE, firstHousekeepingMs: 24 * 60 * MINUTE },
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.slack.reset();
  h.model.reset();
  // An occurrence runs with its owner's access: they are in the channel (checked with conversations.members).
  h.slack.setMembers(CHANNEL, [ANA, BEN, 'U0ADMIN']);
});

/** Moves the test clock and waits until the app has done what that made due. */
async function advance(ms: number) {
  clock.advance(ms);
  await h.app.idle();
}

function userText(request: ChatRequestBody): string {
  return JSON.stringify(request.messages.filter((m) => m.role === 'user').map((m) => m.content));
}

async function occurrences(taskId: number) {
  return rowsOf<{ due_at: string; late_ms: number; run_id: number | null; result: string | null; error: string | null }>(
    await h.database.db.execute(sql`select due_at, late_ms, run_id, result, error from task_occurrences where task_id = ${taskId} order by due_at`),
  );
}

/** The earlier tests' daily tasks would answer at the same times (and take the model's scripted replies): gone. */
async function deleteOtherTasks() {
  await h.database.db.execute(sql`update scheduled_tasks set state = 'deleted', next_due_at = null where state in ('active', 'paused')`);
}

async function taskRow(taskId: number) {
  const [row] = rowsOf<{ state: string; consecutive_failures: number; last_result: string | null; paused_reason: string | null }>(
    await h.database.db.execute(sql`select state, consecutive_failures, last_result, paused_reason from scheduled_tasks where id = ${taskId}`),
  );
  return row!;
}

async function newestTask() {
  const [row] = rowsOf<{ id: number; state: string; owner_id: string; announcement_ts: string | null; time_zone: string }>(
    await h.database.db.execute(sql`select id, state, owner_id, announcement_ts, time_zone from scheduled_tasks order by id desc limit 1`),
  );
  return row!;
}

/** Ana asks in a new thread; the model schedules `when`; returns the thread and the announcement. */
async function schedule(when: string, prompt: string, user = ANA) {
  h.model.enqueue({ toolCalls: [{ name: 'schedule_task', arguments: { prompt, when } }] }, { text: 'Done — I will do that.' });
  const { ts } = await h.mention({ user, text: `<@${h.slack.botUserId}> ${prompt}` });
  await h.answers(CHANNEL, ts, 2, 20_000); // the announcement and the answer
  await h.app.idle();
  const announcement = h.slack.botMessages(CHANNEL, ts).find((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_task_delete'));
  expect(announcement, 'the announcement with its Delete button').toBeDefined();
  return { threadTs: ts, announcement: announcement!, task: await newestTask() };
}

function answersIn(threadTs: string, marker: string) {
  return h.slack.botMessages(CHANNEL, threadTs).filter((m) => JSON.stringify([m.text, m.blocks]).includes(marker));
}

describe('a task scheduled in a thread', () => {
  it('is announced with Delete, and its occurrence answers in the thread once, at the due time', async () => {
    const { threadTs, announcement, task } = await schedule('2026-11-24T10:00', 'remind me to check the rollout');
    expect(task.time_zone).toBe('Europe/London'); // the asker's users.info tz, not the workspace's TIMEZONE
    expect(announcement.text).toContain('Scheduled');
    expect(JSON.stringify(announcement.blocks)).toContain('Delete');
    expect(task.announcement_ts).toBe(announcement.ts);
    // The model was offered schedule_task with the person's time zone.
    const offered = toolsOffered(h.model.requests[0]!).find((tool) => tool.name === 'schedule_task');
    expect(offered?.description).toContain('Europe/London');

    h.model.enqueue({ text: 'Reminder: check the rollout (OCC-1).' });
    await advance(59 * MINUTE);
    expect(answersIn(threadTs, 'OCC-1')).toHaveLength(0); // not yet due
    await advance(1 * MINUTE);
    await eventually(() => answersIn(threadTs, 'OCC-1').length === 1 && isFinished(threadTs, 'OCC-1'), { timeoutMs: 20_000 });
    await h.app.idle();

    expect(answersIn(threadTs, 'OCC-1')).toHaveLength(1);
    const asked = userText(h.model.requests.at(-1)!);
    expect(asked).toContain('[Scheduled run]');
    expect(asked).toContain('Nobody is waiting for a reply in real time');
    expect(asked).toContain('remind me to check the rollout');
    expect(asked).not.toContain('late (threadwise was not running');
    // No :eyes: on a message that does not exist, no schedule_task offered to the occurrence itself.
    expect(h.slack.callsTo('reactions.add')).toHaveLength(0);
    expect(toolsOffered(h.model.requests.at(-1)!).some((tool) => tool.name === 'schedule_task')).toBe(false);

    const done = await occurrences(task.id);
    expect(done).toHaveLength(1);
    expect(done[0]!.result).toBe('ok');
    expect((await newestTask()).state).toBe('done');
    // The one-off's announcement says it is done, and has no button left.
    const ended = h.slack.botMessages(CHANNEL, threadTs).find((m) => m.ts === announcement.ts)!;
    expect(JSON.stringify(ended.blocks)).toContain('Done');
    expect(JSON.stringify(ended.blocks)).not.toContain('threadwise_task_delete');

    // Later, nothing more.
    await advance(120 * MINUTE);
    expect(answersIn(threadTs, 'OCC-1')).toHaveLength(1);
    expect(await occurrences(task.id)).toHaveLength(1);
  });

  it('says why when asked for something too frequent, and schedules nothing', async () => {
    h.model.enqueue({ toolCalls: [{ name: 'schedule_task', arguments: { prompt: 'ping', when: '*/5 * * * *' } }] }, { text: 'That is too often.' });
    const before = await newestTask();
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> ping me every 5 minutes` });
    await h.answers(CHANNEL, ts, 1, 20_000);
    const result = JSON.stringify(h.model.requests[1]!.messages.filter((m) => m.role === 'tool'));
    expect(result).toContain('Not scheduled');
    expect(result).toMatch(/60 minutes/);
    expect((await newestTask()).id).toBe(before.id);
  });
});

describe('a repeating task across a restart', () => {
  it('runs a missed occurrence once, marked late, and moves on to the next due time', async () => {
    // Every day at 14:00 London; it is 12:00 now (the clock moved in the test above).
    const { threadTs, task } = await schedule('0 14 * * *', 'post the daily digest');
    const dueAt = Date.UTC(2026, 10, 24, 14, 0, 0);
    await advance(dueAt - clock.now() - 5 * MINUTE);

    // Down across 14:00: stopped, the clock moves 20 minutes past the due time, started again on the same database.
    await h.app.stop(1_000);
    clock.advance(25 * MINUTE);
    h.model.enqueue({ text: 'Daily digest (DIGEST-LATE).' });
    await h.restart();
    await eventually(() => answersIn(threadTs, 'DIGEST-LATE').length === 1 && isFinished(threadTs, 'DIGEST-LATE'), { timeoutMs: 20_000 });
    await h.app.idle();

    expect(userText(h.model.requests.at(-1)!)).toContain('It starts 20 min late');
    const seen = await occurrences(task.id);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.late_ms).toBe(20 * MINUTE);

    // Another restart with nothing due: nothing runs again.
    await h.restart();
    await h.app.idle();
    expect(answersIn(threadTs, 'DIGEST-LATE')).toHaveLength(1);
    expect(await occurrences(task.id)).toHaveLength(1);

    // `/ask tasks` lists it for its owner, with its buttons.
    const response = await h.ask({ user: ANA, text: 'tasks' });
    expect(response.status).toBe(200);
    await eventually(() => h.responses.length > 0);
    const listed = JSON.stringify(h.responses.at(-1));
    expect(listed).toContain('post the daily digest');
    expect(listed).toContain('threadwise_task_pause');
    expect(listed).toContain('threadwise_task_delete');

    // App Home shows the same, with its buttons.
    await postSlackEvent(h.eventsUrl, SIGNING_SECRET, appHomeOpenedEvent({ user: ANA }), { teamId: h.slack.teamId });
    await h.slack.waitFor(() => h.slack.callsTo('views.publish').length > 0, 10_000);
    const home = JSON.stringify(h.slack.callsTo('views.publish').at(-1));
    expect(home).toContain('Your scheduled tasks');
    expect(home).toContain('post the daily digest');
    expect(home).toContain('threadwise_task_delete');

    // The operator console lists it by name, its occurrence linked to its run.
    const [occurrence] = await occurrences(task.id);
    const consolePage = await (await fetch(`${h.app.consoleUrl}/tasks`)).text();
    expect(consolePage).toContain('post the daily digest');
    expect(consolePage).toContain('every day at 14:00');
    expect(consolePage).toContain('>Ana<');
    expect(consolePage).toContain('#general');
    expect(consolePage).toContain(`<a href="/runs/${occurrence!.run_id}">Run #${occurrence!.run_id}</a>`);
    expect(consolePage).toContain('<a href="/tasks" aria-current="page">Tasks</a>');

    // Delete by someone else: refused with a sentence, the task carries on.
    const click = (user: string) =>
      h.interact(buttonClick({ slack: h.slack, user, channel: CHANNEL, message: { ts: task.announcement_ts!, thread_ts: threadTs }, action: { action_id: 'threadwise_task_delete', value: String(task.id) } }));
    await click(BEN);
    await h.slack.waitFor(() => h.slack.ephemerals.some((e) => e.user === BEN), 10_000);
    expect(h.slack.ephemerals.find((e) => e.user === BEN)?.text).toBe(`Only <@${ANA}> (who scheduled it) or an admin can delete this task.`);
    expect((await newestTask()).state).toBe('active');

    // By its owner: gone, the announcement says so, and the next day at 14:00 nothing runs.
    await click(ANA);
    await eventually(async () => (await newestTask()).state === 'deleted');
    await h.slack.waitFor(() => JSON.stringify(h.slack.botMessages(CHANNEL, threadTs).find((m) => m.ts === task.announcement_ts)?.blocks ?? []).includes('Deleted'), 10_000);
    await h.app.idle();
    const requestsBefore = h.model.requests.length;
    await advance(24 * 60 * MINUTE);
    expect(h.model.requests.length).toBe(requestsBefore);
    expect(await occurrences(task.id)).toHaveLength(1);
  });
});

describe('an occurrence whose owner left the workspace', () => {
  it('is refused, counted as a failure, and pauses the task after repeated failures', async () => {
    h.slack.addUser({ id: 'U0LEAVER', name: 'leo', displayName: 'Leo' });
    const { threadTs, task } = await schedule(`0 ${new Date(clock.now() + 2 * 60 * MINUTE).getUTCHours()} * * *`, 'summarise the day', 'U0LEAVER');
    h.slack.addUser({ id: 'U0LEAVER', name: 'leo', displayName: 'Leo', deleted: true });
    const requestsBefore = h.model.requests.length;
    // TASK_PAUSE_AFTER_FAILURES defaults to 3: three days, three refusals, then it pauses and says so.
    for (let day = 0; day < 3; day++) await advance(24 * 60 * MINUTE);
    await eventually(() => h.slack.botMessages(CHANNEL, threadTs).some((m) => (m.text ?? '').includes('I paused this scheduled task')), { timeoutMs: 10_000 });
    expect(h.model.requests.length).toBe(requestsBefore); // never ran as someone who left
    const seen = await occurrences(task.id);
    expect(seen.map((o) => o.result)).toEqual(['failed', 'failed', 'failed']);
    expect(h.slack.botMessages(CHANNEL, threadTs).filter((m) => /I did not run this scheduled task: .* is no longer in the workspace/.test(m.text ?? ''))).toHaveLength(3);
    expect((await newestTask()).state).toBe('paused');
  });
});

function isFinished(threadTs: string, marker: string): boolean {
  const message = answersIn(threadTs, marker).at(-1);
  return message !== undefined && JSON.stringify(message.blocks ?? []).includes('feedback_buttons');
}

function toolsOffered(request: ChatRequestBody): Array<{ name: string; description?: string }> {
  return (request.tools ?? []).flatMap((tool) => ('function' in tool ? [tool.function] : []));
}

describe('an occurrence whose owner’s access cannot be checked', () => {
  it('does not run, and says why in the thread', async () => {
    const { threadTs, task } = await schedule(`0 ${new Date(clock.now() + 2 * 60 * MINUTE).getUTCHours()} * * *`, 'post the standup digest');
    const requestsBefore = h.model.requests.length;
    // Slack cannot say who is in the channel: the occurrence is not taken to be allowed.
    h.slack.failNext('conversations.members', { error: 'ratelimited' }, 20);
    await advance(24 * 60 * MINUTE);
    await eventually(() => h.slack.botMessages(CHANNEL, threadTs).some((m) => /could not check with Slack that .* can still read this channel/.test(m.text ?? '')), { timeoutMs: 10_000 });
    expect(h.model.requests.length).toBe(requestsBefore);
    expect((await occurrences(task.id)).map((o) => o.result)).toEqual(['failed']);
  });
});


describe('an occurrence whose owner reached today’s spend limit', () => {
  it('is skipped like a question over the limit: no model call, a sentence in the thread, recorded as skipped and not as a failure', async () => {
    h.slack.addUser({ id: 'U0SPENDER', name: 'sam', displayName: 'Sam' });
    h.slack.setMembers(CHANNEL, [ANA, BEN, 'U0ADMIN', 'U0SPENDER']);
    await deleteOtherTasks();
    const { threadTs, task } = await schedule(`0 ${new Date(clock.now() + 2 * 60 * MINUTE).getUTCHours()} * * *`, 'summarise the costs', 'U0SPENDER');
    // Sam's other questions today cost $1.50: past DAILY_LIMIT_USER ($1).
    await h.database.db.execute(sql`
      insert into runs (thread_id, trigger_ts, trigger_user_id, channel_id, status, cost_usd)
      select id, '1700009999.000100', 'U0SPENDER', ${CHANNEL}, 'done', 1.5 from threads where thread_ts = ${threadTs}`);
    const requestsBefore = h.model.requests.length;

    await advance(24 * 60 * MINUTE);
    await eventually(() => h.slack.botMessages(CHANNEL, threadTs).some((m) => (m.text ?? '').includes('I skipped this run of the scheduled task')), { timeoutMs: 10_000 });
    await h.app.idle();
    expect(h.model.requests.length).toBe(requestsBefore); // no model call
    const said = h.slack.botMessages(CHANNEL, threadTs).filter((m) => (m.text ?? '').includes('I skipped this run of the scheduled task'));
    expect(said).toHaveLength(1);
    expect(said[0]!.text).toMatch(/<@U0SPENDER>, who scheduled it, has reached today’s spending limit for my answers \(\$1\.50 of \$1\.00\)\. The limit resets at midnight UTC/);
    const [occurrence] = await occurrences(task.id);
    expect(occurrence).toMatchObject({ result: 'skipped' });
    expect(occurrence!.error).toContain('reached today’s spending limit');
    // Not the task's failure: it stays active, with no failures counted toward pausing it.
    expect(await taskRow(task.id)).toMatchObject({ state: 'active', consecutive_failures: 0, last_result: 'skipped' });
  });
});

describe('an occurrence whose run is given up after repeated interruptions', () => {
  it('records the failure with the reason, and it counts toward pausing the task', async () => {
    await deleteOtherTasks();
    const { threadTs, task } = await schedule(`0 ${new Date(clock.now() + 2 * 60 * MINUTE).getUTCHours()} * * *`, 'post the build report');
    // It failed the two days before: this is the third failure in a row.
    await h.database.db.execute(sql`update scheduled_tasks set consecutive_failures = 2 where id = ${task.id}`);
    // The answer stalls half-way (the model stops sending).
    h.model.enqueue({ text: `Build report (HALF-WAY). ${'More detail follows here. '.repeat(40)}`, stallAfterChunks: 4 });
    clock.advance(24 * 60 * MINUTE);
    await eventually(() => h.model.requests.some((request) => userText(request).includes('[Scheduled run]') && userText(request).includes('post the build report')), { timeoutMs: 20_000 });
    // As if the process answering it had died a third time: its lease is gone, its attempts are used up.
    const [occurrence] = await occurrences(task.id);
    await h.database.db.execute(
      sql`update runs set attempts = 3, lease_owner = 'a-process-that-died', lease_expires_at = now() - interval '1 second' where id = ${occurrence!.run_id}`,
    );
    // This process stops (the stalled attempt, no longer the run's owner, posts nothing); its stop's timer is on the test clock.
    let stopped = false;
    const stopping = h.app.stop(0).then(() => (stopped = true));
    await eventually(() => {
      clock.advance(0);
      return stopped;
    }, { timeoutMs: 20_000 });
    await stopping;
    expect(await occurrences(task.id)).toMatchObject([{ result: null }]);

    // The next process takes the run over: its fourth attempt gives up.
    await h.restart();
    await eventually(() => h.slack.botMessages(CHANNEL, threadTs).some((m) => (m.text ?? '').includes('I paused this scheduled task')), { timeoutMs: 20_000 });
    await h.app.idle();
    expect(h.slack.botMessages(CHANNEL, threadTs).some((m) => JSON.stringify([m.text, m.blocks]).includes('so I’ve stopped trying'))).toBe(true);
    const [ended] = await occurrences(task.id);
    expect(ended).toMatchObject({ result: 'failed', error: 'gave up after 3 interrupted attempts' });
    expect(await taskRow(task.id)).toMatchObject({ state: 'paused', paused_reason: 'failures', consecutive_failures: 3, last_result: 'failed' });
  });
});

describe('an occurrence a person stops while it answers', () => {
  it('is recorded as skipped, and does not count toward pausing the task', async () => {
    await deleteOtherTasks();
    const { task } = await schedule(`0 ${new Date(clock.now() + 2 * 60 * MINUTE).getUTCHours()} * * *`, 'post the build report');
    // Two failures in a row before: a third would pause it.
    await h.database.db.execute(sql`update scheduled_tasks set consecutive_failures = 2 where id = ${task.id}`);
    h.model.enqueue({ text: `Build report (HALF-WAY). ${'More detail follows here. '.repeat(40)}`, stallAfterChunks: 4 });
    clock.advance(24 * 60 * MINUTE);
    await eventually(() => h.model.requests.some((request) => userText(request).includes('[Scheduled run]') && userText(request).includes('post the build report')), { timeoutMs: 20_000 });
    const [occurrence] = await occurrences(task.id);

    // What Stop (or a :x: reaction) asks of a run at work; it stops at its next heartbeat, on the test clock.
    await h.database.db.execute(sql`update runs set cancel_requested = true where id = ${occurrence!.run_id}`);
    await eventually(async () => {
      clock.advance(MINUTE);
      return (await occurrences(task.id))[0]!.result !== null;
    }, { timeoutMs: 20_000 });

    expect((await occurrences(task.id))[0]).toMatchObject({ result: 'skipped', error: 'cancelled by a user' });
    expect(await taskRow(task.id)).toMatchObject({ state: 'active', consecutive_failures: 2, last_result: 'skipped' });
  });
});
