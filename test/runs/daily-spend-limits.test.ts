/**
 * Daily spend limits (DAILY_LIMIT_USER, DAILY_LIMIT_CHANNEL in USD per UTC day, at MODEL_PRICES): a question over a
 * limit gets one polite sentence in the thread saying when the limit resets, no model call, and a refused run. Two
 * replicas on one database enforce one limit. An admin's lift (the console's form) lets questions through again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../src/config';
import { startThreadwise, type RunningThreadwise } from '../../src/app/index';
import { rowsOf } from '../../src/store/database';
import { liftSpendLimitForToday } from '../../src/store/spend-limit-store';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, startHarness, type Harness } from '../support/harness';
import { mentionEvent, newEventId, postSlackEvent } from '../fakes/slack-signing';
import { eventually } from '../support/eventually';

// $10 per million tokens either way: 1,000 tokens cost exactly $0.01.
const ENV = {
  MODEL_PRICES: JSON.stringify({ 'gpt-4o-mini': { input: 10, output: 10 } }),
  DAILY_LIMIT_USER: '0.01',
  DAILY_LIMIT_CHANNEL: '0.015',
};

let h: Harness;
let replicaB: RunningThreadwise;

beforeAll(async () => {
  h = await startHarness({ env: ENV });
  const loaded = loadConfig({
    SLACK_BOT_TOKEN: h.slack.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: h.slack.apiUrl,
    OPENAI_API_KEY: 'sk-test-key-0123456789abcdef',
    OPENAI_BASE_URL: h.model.url,
    OPENAI_MODEL: 'gpt-4o-mini',
    PORT: '0',
    SKILLS_DIR: 'skills',
    USER_RATE_LIMIT_PER_MINUTE: '0',
    ...ENV,
  });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  // The second replica: its own receiver, worker and intake, the same database.
  replicaB = await startThreadwise(loaded.config, { logger: h.logger, database: h.database, pollMs: 200, leaseMs: 3_000, workerId: 'replica-b' });
}, 60_000);

afterAll(async () => {
  await replicaB?.stop(1_000);
  await h?.close();
});

/** A new question in a new thread, delivered to one replica. */
async function ask(replica: 'A' | 'B', user: string, text: string): Promise<string> {
  const stored = h.slack.addMessage(CHANNEL, { user, text: `<@${h.slack.botUserId}> ${text}` });
  const url = replica === 'A' ? h.eventsUrl : `http://127.0.0.1:${replicaB.port}/slack/events`;
  const response = await postSlackEvent(url, SIGNING_SECRET, mentionEvent({ channel: CHANNEL, user, text: stored.text ?? '', ts: stored.ts }), {
    eventId: newEventId(),
    teamId: h.slack.teamId,
  });
  expect(response.status).toBe(200);
  return stored.ts;
}

const runOf = async (ts: string) =>
  rowsOf<{ status: string; cost_usd: number; error: string | null; question: string | null }>(
    await h.database.db.execute(sql`select status, cost_usd, error, question from runs where trigger_ts = ${ts}`),
  )[0];

async function settled(ts: string) {
  await h.slack.waitFor(() => h.slack.botMessages(CHANNEL, ts).length > 0, 15_000);
  return eventually(async () => {
    const run = await runOf(ts);
    return ['done', 'refused', 'failed'].includes(run?.status ?? '') && run!;
  });
}

describe('daily spend limits', () => {
  it('answer until a user has spent their limit, then refuse on every replica without calling the model', async () => {
    h.model.enqueue({ text: 'Here you go.', usage: { prompt_tokens: 1_000, completion_tokens: 10 } });
    const first = await ask('A', ANA, 'first question');
    expect(await h.answers(CHANNEL, first)).toEqual(['Here you go.']);
    const firstRun = await settled(first);
    expect(firstRun).toMatchObject({ status: 'done', question: 'first question' });
    expect(Number(firstRun!.cost_usd)).toBeCloseTo(0.0101, 6);

    const callsBefore = h.model.requests.length;
    const second = await ask('B', ANA, 'second question');
    const refused = await settled(second);
    expect(refused?.status).toBe('refused');
    const [sentence] = h.slack.botMessages(CHANNEL, second);
    expect(sentence?.text).toMatch(/^Sorry <@U0ANA>, you’ve used today’s budget for my answers \(\$0\.0101 of \$0\.01\).*resets at midnight UTC \(in about \d+ (hour|minute)s?\)/);
    expect(sentence?.thread_ts).toBe(second);
    expect(h.model.requests.length).toBe(callsBefore);
    // And on the first replica too: one limit, kept in the database.
    const third = await ask('A', ANA, 'third question');
    expect((await settled(third))?.status).toBe('refused');
    expect(h.model.requests.length).toBe(callsBefore);
  });

  it("refuse in a channel that has spent its limit, whoever asks, until an admin lifts it for today", async () => {
    h.model.enqueue({ text: 'Ben’s answer.', usage: { prompt_tokens: 590, completion_tokens: 10 } });
    const bens = await ask('B', BEN, 'what about me?');
    expect(await h.answers(CHANNEL, bens)).toEqual(['Ben’s answer.']);
    expect((await settled(bens))?.status).toBe('done'); // the channel is now at $0.0161 of $0.015; Ben at $0.006 of $0.01

    const callsBefore = h.model.requests.length;
    const again = await ask('A', BEN, 'and again?');
    expect((await settled(again))?.status).toBe('refused');
    expect(h.slack.botMessages(CHANNEL, again)[0]?.text).toMatch(/^Sorry, this channel has used today’s budget for my answers \(\$0\.0161 of \$0\.015\)/);
    expect(h.model.requests.length).toBe(callsBefore);

    await liftSpendLimitForToday(h.database.db, 'channel', CHANNEL, 'ops');
    h.model.enqueue({ text: 'Lifted, so here it is.', usage: { prompt_tokens: 10, completion_tokens: 2 } });
    const afterLift = await ask('B', BEN, 'now?');
    expect(await h.answers(CHANNEL, afterLift)).toEqual(['Lifted, so here it is.']);
    // Ana's own limit still holds: lifting the channel's does not lift hers.
    const anas = await ask('A', ANA, 'me too?');
    expect((await settled(anas))?.status).toBe('refused');
  });
});
