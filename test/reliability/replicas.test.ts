/**
 * Three threadwise processes on one real PostgreSQL, as behind a load balancer: Slack's deliveries and retries of
 * one event land on different replicas, a message also arrives as a `message` event on a third, follow-ups land
 * wherever. Exactly one answer per question, one run at a time per thread, and a dead replica's run taken over.
 *
 * Needs TEST_DATABASE_URL (CI sets it); without it the suite is skipped with a note.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI, type ScriptedReply } from '../fakes/fake-openai';
import { mentionEvent, messageEvent, newEventId, postSlackEvent } from '../fakes/slack-signing';
import { createScratchPostgres } from '../support/databases';
import { botEnvironment, killAll, MODEL_KEY, SIGNING_SECRET, spawnBot, type BotProcess } from './support/bot-process';
import { eventually } from '../support/eventually';

const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) console.warn('[replicas.test] skipped: set TEST_DATABASE_URL to a PostgreSQL admin URL to run three replicas on one database');

const CHANNEL = 'C0GENERAL';
const ANA = 'U0ANA';
const BEN = 'U0BEN';

/** Every "Q<n>" tag the request asks about: the user messages after the last answer are the questions of this call. */
function tagsIn(request: ChatRequestBody): string[] {
  const lastAnswer = request.messages.findLastIndex((m) => m.role === 'assistant');
  const asked = request.messages.slice(lastAnswer + 1).filter((m) => m.role === 'user');
  return [...new Set(JSON.stringify(asked.map((m) => m.content)).match(/Q\d+[a-z]?/g) ?? [])];
}

describe.skipIf(!adminUrl)('three replicas on one PostgreSQL', { timeout: 180_000 }, () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let scratch: { url: string; drop(): Promise<void> };
  let sql: postgres.Sql;
  let bots: BotProcess[] = [];
  /** Slow answers for these tags on their first call: long enough to kill the replica working on them. */
  const stallOnce = new Set<string>();

  beforeAll(async () => {
    slack = await startFakeSlack({ botName: 'threadwise' });
    model = await startFakeOpenAI({ apiKey: MODEL_KEY });
    slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
    slack.addUser({ id: BEN, name: 'ben', displayName: 'Ben' });
    slack.addChannel({ id: CHANNEL, name: 'general' });
    scratch = await createScratchPostgres(adminUrl!);
    sql = postgres(scratch.url, { max: 2, onnotice: () => {} });
    // A short lease, so a killed replica's run is taken over within seconds; live replicas renew it every third.
    const env = botEnvironment(slack, model, { DATABASE_URL: scratch.url, RUN_LEASE_SECONDS: '4' });
    bots = await Promise.all([spawnBot(env, 120_000), spawnBot(env, 120_000), spawnBot(env, 120_000)]);
  }, 180_000);
  afterAll(async () => {
    await killAll(bots);
    await sql?.end();
    await scratch?.drop();
    await slack?.close();
    await model?.close();
  });
  beforeEach(() => {
    slack.reset();
    model.reset();
    model.setDefault((request): ScriptedReply => {
      const tags = tagsIn(request);
      const stall = tags.find((tag) => stallOnce.delete(tag));
      const reply = { text: `Answering ${tags.join(', ')}.` };
      return stall ? { delayMs: 30_000, then: reply } : { delayMs: 500, then: reply };
    });
  });

  async function post(bot: BotProcess, event: object, eventId: string, retryNum?: number) {
    const response = await postSlackEvent(bot.eventsUrl, SIGNING_SECRET, event, {
      eventId,
      retryNum,
      retryReason: retryNum ? 'http_timeout' : undefined,
      teamId: slack.teamId,
    });
    expect(response.status).toBe(200);
  }

  /** A mention delivered to one replica, retried to the next, and seen as a `message` event by the third. */
  async function askEverywhere(first: number, text: string, threadTs?: string, user = ANA) {
    const message = slack.addMessage(CHANNEL, { user, text: `<@${slack.botUserId}> ${text}`, thread_ts: threadTs });
    const base = { channel: CHANNEL, user, text: message.text!, ts: message.ts, thread_ts: threadTs };
    const mentionId = newEventId();
    await Promise.all([
      post(bots[first % 3]!, mentionEvent(base), mentionId),
      post(bots[(first + 1) % 3]!, mentionEvent(base), mentionId, 1),
      post(bots[(first + 2) % 3]!, messageEvent({ ...base, channel_type: 'channel' }), newEventId()),
    ]);
    return message.ts;
  }

  async function unfinishedRuns(): Promise<number> {
    const [row] = await sql<Array<{ n: number }>>`select count(*)::int as n from runs where status in ('pending', 'running')`;
    return row!.n;
  }

  const waitUntil = (condition: () => Promise<boolean> | boolean, timeoutMs = 60_000) =>
    eventually(condition, { timeoutMs, intervalMs: 100, what: () => `the condition (model requests: ${model.requests.length})` });

  /**
   * Every replica has gone quiet, as far as the shared database shows: every acknowledged delivery was decided (its
   * record of receipt is settled in the transaction that admits it, or forgotten when it needed no run) and no run
   * is pending or running. From here no answer can come that is not there already.
   */
  async function quiet(): Promise<boolean> {
    const [row] = await sql<Array<{ n: number }>>`select (select count(*) from slack_deliveries)::int + (select count(*) from pending_questions)::int as n`;
    return row!.n === 0 && (await unfinishedRuns()) === 0;
  }

  const answersIn = (threadTs: string) =>
    slack.botMessages(CHANNEL, threadTs).filter((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === undefined);

  it('answers every question exactly once, one run at a time per thread, whichever replica got which delivery', async () => {
    const threads: string[] = [];
    for (let i = 0; i < 9; i++) threads.push(await askEverywhere(i, `Q${i} what about item ${i}?`));
    // Follow-ups in three threads while their first runs work, each to yet another replica.
    for (let i = 0; i < 3; i++) {
      await askEverywhere(i + 1, `Q${i}b and a follow-up?`, threads[i], BEN);
      await askEverywhere(i + 2, `Q${i}c and one more?`, threads[i]);
    }
    const questions = [...Array.from({ length: 9 }, (_, i) => `Q${i}`), ...[0, 1, 2].flatMap((i) => [`Q${i}b`, `Q${i}c`])];

    // Until every question reached the model and nothing runs: the last deliveries may still be in a replica's intake.
    const asked = () => new Set(model.requests.flatMap((request) => tagsIn(request)));
    await waitUntil(async () => questions.every((tag) => asked().has(tag)) && (await quiet()));

    // Every question went into exactly one model call, and every model call produced exactly one answer.
    const answeredTags = model.requests.flatMap((request) => tagsIn(request));
    expect([...answeredTags].sort()).toEqual([...questions].sort());
    const runs = await sql<Array<{ thread_ts: string; status: string; started_at: Date; finished_at: Date; answer_ts: string[] }>>`
      select t.thread_ts, r.status, r.started_at, r.finished_at, r.answer_ts
      from runs r join threads t on t.id = r.thread_id order by r.id`;
    expect(runs.every((run) => run.status === 'done' && run.answer_ts.length === 1)).toBe(true);
    expect(runs).toHaveLength(model.requests.length);
    for (const threadTs of threads) {
      const own = runs.filter((run) => run.thread_ts === threadTs);
      expect(answersIn(threadTs)).toHaveLength(own.length);
      for (let k = 1; k < own.length; k++) expect(own[k]!.started_at.getTime()).toBeGreaterThanOrEqual(own[k - 1]!.finished_at.getTime());
    }
    // The deliveries really were spread: every replica's intake decided on some of them. Which replica wins a
    // question is a race, so that is not asserted; that the winners together admitted each question once is.
    const admitted = /"message":"(run queued|message folded into the waiting run)"/;
    const decided = /"message":"(run queued|message folded into the waiting run|duplicate delivery; already recorded)"/;
    for (const bot of bots) expect(bot.lines.some((line) => decided.test(line))).toBe(true);
    expect(bots.flatMap((bot) => bot.lines.filter((line) => admitted.test(line)))).toHaveLength(questions.length);
  });

  it('takes over the run of a replica killed mid-answer once its lease expires, and answers once', async () => {
    stallOnce.add('Q99');
    const threadTs = await askEverywhere(0, 'Q99 who holds this run?');
    await waitUntil(() => model.requests.some((request) => tagsIn(request).includes('Q99')));
    const [holder] = await sql<Array<{ lease_owner: string }>>`select lease_owner from runs where status = 'running'`;
    const victim = bots.find((bot) => holder!.lease_owner.startsWith(`${bot.pid}-`))!;
    expect(victim).toBeDefined();
    victim.kill('SIGKILL');
    await victim.exited;

    await waitUntil(async () => answersIn(threadTs).length > 0 && (await quiet()), 60_000);
    expect(answersIn(threadTs).map((m) => m.text)).toEqual([expect.stringContaining('Answering Q99')]);
    const notes = slack.botMessages(CHANNEL, threadTs).filter((m) => /picking this up again/.test(m.text ?? ''));
    expect(notes).toHaveLength(1);
    const [run] = await sql<Array<{ attempts: number; status: string }>>`select attempts, status from runs r join threads t on t.id = r.thread_id where t.thread_ts = ${threadTs}`;
    expect(run).toEqual({ attempts: 2, status: 'done' });
    expect(bots.filter((bot) => bot !== victim).some((bot) => bot.lines.some((line) => line.includes('"message":"resuming run"')))).toBe(true);
  });
});
