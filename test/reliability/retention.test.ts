/**
 * What threadwise keeps, and for how long: file text, chunks, image descriptions and tool-call payloads go after
 * RETENTION_DAYS while the run totals stay; a file or message deleted in Slack takes what was derived from it along.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL, startHarness, type Harness } from '../support/harness';
import { rowsOf } from '../../src/store/database';
import { eventually } from '../support/eventually';

let h: Harness;
beforeAll(async () => {
  // The sweep as the app runs it: once shortly after start, then periodically (hourly in production).
  h = await startHarness({ start: { firstHousekeepingMs: 50, housekeepingMs: 400 } });
});
afterAll(() => h.close());
beforeEach(() => {
  h.slack.reset();
  h.model.reset();
});

const count = async (query: ReturnType<typeof sql>) => Number(rowsOf<{ n: number | string }>(await h.database.db.execute(query))[0]!.n);

/** A thread whose question came with a text file the model searched: text, chunks and a step with arguments. */
async function answeredWithFile(name: string, content: string) {
  const file = h.slack.addFile({ name, mimetype: 'text/plain', content: Buffer.from(content) });
  h.model.setDefault((request) =>
    request.messages.some((m) => m.role === 'tool')
      ? { text: 'The retention clause says ninety days.', usage: { prompt_tokens: 900, completion_tokens: 20 } }
      : { toolCalls: [{ name: 'search_file', arguments: { id: 'F1', query: 'retention clause' } }], usage: { prompt_tokens: 700, completion_tokens: 15 } },
  );
  const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> what does ${name} say about retention?`, files: [file] });
  await h.answers(CHANNEL, ts);
  // The run's end (its totals) is recorded just after the answer.
  await eventually(async () => (await count(sql`select count(*) as n from runs r join threads t on t.id = r.thread_id where t.thread_ts = ${ts} and r.status = 'done'`)) === 1);
  return { file, ts };
}

const hashOf = async (slackFileId: string) =>
  rowsOf<{ content_hash: string }>(await h.database.db.execute(sql`select content_hash from slack_file_contents where slack_file_id = ${slackFileId}`))[0]
    ?.content_hash;

describe('retention', () => {
  it('sweeps file text, chunks, image descriptions and step payloads past RETENTION_DAYS (default 90), and keeps the run totals', async () => {
    const { file, ts } = await answeredWithFile('contract-old.txt', `Section 9. Retention clause: records are kept ninety days.\n${'Filler line.\n'.repeat(400)}`);
    const hash = await hashOf(file.id);
    expect(hash).toBeDefined();
    expect(await count(sql`select count(*) as n from chunks where content_hash = ${hash}`)).toBeGreaterThan(0);
    expect(await count(sql`select count(*) as n from run_steps where arguments is not null`)).toBeGreaterThan(0);
    await h.database.db.execute(sql`insert into image_descriptions (slack_file_id, description, model) values ('F0OLDIMAGE', 'A dashboard showing revenue.', 'gpt-4o-mini')`);
    // What the Slack surfaces and the console keep about people: who reacted, where they looked, who lifted a limit.
    await h.database.db.execute(sql`insert into reaction_trigger_claims (channel_id, message_ts, reaction, user_id) values ('C0OLD', '1700000000.000100', 'memo', 'U0OLD')`);
    await h.database.db.execute(sql`insert into user_app_context (team_id, user_id, channel_id) values ('T0OLD', 'U0OLD', 'C0OLD')`);
    await h.database.db.execute(sql`insert into spend_limit_overrides (scope, subject_id, day, lifted_by) values ('user', 'U0OLD', '2026-01-01', 'U0ADMIN')`);
    const totals = sql`select r.status, r.iterations, r.input_tokens, r.output_tokens, r.model, r.started_at, r.finished_at from runs r join threads t on t.id = r.thread_id where t.thread_ts = ${ts}`;
    const totalsBefore = rowsOf(await h.database.db.execute(totals));
    expect(totalsBefore).toEqual([expect.objectContaining({ status: 'done', input_tokens: 1_600, output_tokens: 35 })]);

    // A hundred days pass; the running app's periodic sweep (no restart) finds them past the window.
    await ageEverything(100);
    await eventually(async () => (await count(sql`select count(*) as n from documents where content_hash = ${hash}`)) === 0);
    expect(await count(sql`select count(*) as n from chunks where content_hash = ${hash}`)).toBe(0);
    expect(await count(sql`select count(*) as n from slack_file_contents where slack_file_id = ${file.id}`)).toBe(0);
    await eventually(async () => (await count(sql`select count(*) as n from image_descriptions`)) === 0);
    expect(await count(sql`select count(*) as n from run_steps where arguments is not null`)).toBe(0);
    // Aged one table after another while the sweep runs: a sweep may fall between two of them, the next one finds the rest.
    await eventually(async () => (await count(sql`select count(*) as n from runs where question is not null or answer is not null`)) === 0);
    for (const table of ['reaction_trigger_claims', 'user_app_context', 'spend_limit_overrides']) {
      await eventually(async () => (await count(sql.raw(`select count(*) as n from ${table}`))) === 0);
    }
    // The steps themselves stay, with their token counts and timings: the usage figures need them.
    expect(await count(sql`select count(*) as n from run_steps where kind = 'tool' and name = 'search_file'`)).toBeGreaterThan(0);
    expect(await count(sql`select count(*) as n from run_steps where kind = 'model' and input_tokens > 0`)).toBeGreaterThan(0);
    expect(rowsOf(await h.database.db.execute(totals))).toEqual(totalsBefore);
  });

  it('keeps what is younger than the window, and sweeps at start with the window configured', async () => {
    const { file } = await answeredWithFile('contract-new.txt', 'Section 2. Retention clause: thirty days for drafts.\n');
    const hash = await hashOf(file.id);
    const sweeps = () => h.logs.filter((line) => line.includes('"message":"retention sweep"')).length;
    const sweptBefore = sweeps();
    await ageEverything(80);
    // Two periodic sweeps later (one of them begun after the ageing), eighty days is inside the default ninety.
    await eventually(() => sweeps() >= sweptBefore + 2);
    expect(await count(sql`select count(*) as n from documents where content_hash = ${hash}`)).toBe(1);

    // Started again with a window of 30 days: the sweep at start removes it.
    await h.restart({ RETENTION_DAYS: '30' });
    await eventually(async () => (await count(sql`select count(*) as n from documents where content_hash = ${hash}`)) === 0);
    await h.restart();
  });

  it('removes a file’s text and chunks when Slack says it was deleted (file_deleted)', async () => {
    const { file } = await answeredWithFile('to-be-deleted.txt', `Retention clause: deleted on request.\n${'More text.\n'.repeat(300)}`);
    const hash = await hashOf(file.id);
    expect(await count(sql`select count(*) as n from chunks where content_hash = ${hash}`)).toBeGreaterThan(0);

    const slackCallsBefore = h.slack.calls.length;
    expect(await h.slack.deleteFile(file.id)).toBe(200);

    await eventually(async () => (await count(sql`select count(*) as n from documents where content_hash = ${hash}`)) === 0);
    expect(await count(sql`select count(*) as n from chunks where content_hash = ${hash}`)).toBe(0);
    expect(await count(sql`select count(*) as n from slack_file_contents where slack_file_id = ${file.id}`)).toBe(0);
    expect(await count(sql`select count(*) as n from thread_files where slack_file_id = ${file.id}`)).toBe(0);
    // Nothing is said in the thread about it.
    expect(h.slack.calls.slice(slackCallsBefore).filter((call) => call.method.startsWith('chat.'))).toEqual([]);
  });

  it('removes the files shared in a message when Slack says the message was deleted (message_deleted)', async () => {
    const { file, ts } = await answeredWithFile('shared-then-deleted.txt', 'Retention clause: the message goes, so does this.\n');
    const hash = await hashOf(file.id);
    expect(hash).toBeDefined();

    expect(await h.slack.deleteMessage(CHANNEL, ts)).toBe(200);

    await eventually(async () => (await count(sql`select count(*) as n from documents where content_hash = ${hash}`)) === 0);
    expect(await count(sql`select count(*) as n from thread_files where slack_file_id = ${file.id}`)).toBe(0);
  });
});

/** Moves every timestamp of what the app stored `days` days into the past. */
async function ageEverything(days: number) {
  for (const table of ['documents', 'image_descriptions', 'run_steps', 'runs', 'thread_files', 'slack_file_contents', 'approvals', 'spend_limit_overrides', 'reaction_trigger_claims']) {
    await h.database.db.execute(sql.raw(`update ${table} set created_at = now() - interval '${days} days'`));
  }
  await h.database.db.execute(sql.raw(`update user_app_context set updated_at = now() - interval '${days} days'`));
  await h.database.db.execute(sql.raw(`update threads set updated_at = now() - interval '${days} days'`));
  await h.database.db.execute(sql.raw(`update thread_messages set updated_at = now() - interval '${days} days'`));
}
