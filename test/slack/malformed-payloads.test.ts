/**
 * Signed requests of unexpected shape — mutated events, interactions and commands, random bodies — as a changed
 * Slack, a broken proxy or a fuzzer would send them. Each is acknowledged without a 5xx, dropped with one log line
 * and no stack trace, and never reaches a listener: nothing is written to Slack for it. Seeded: a failure reruns.
 * And a user over the rate limit hears about it once per window, not once per message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, startHarness, type Harness } from '../support/harness';
import { seededRandom, type Random } from '../support/seeded-random';
import { mentionEvent, newEventId, signSlackRequest, slackEventEnvelope } from '../fakes/slack-signing';
import { rowsOf } from '../../src/store/database';

const SEED = 1818;
const REQUESTS = 420;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { USER_RATE_LIMIT_PER_MINUTE: '10' } });
});
afterAll(() => h.close());

/** Web API methods that change something in Slack. */
const isWrite = (method: string) => !/^(auth\.test|users\.|bots\.|conversations\.(replies|history|info|members)|files\.info|team\.info)/.test(method);

async function postRaw(body: string, contentType: string) {
  const response = await fetch(h.eventsUrl, {
    method: 'POST',
    headers: { 'content-type': contentType, ...signSlackRequest(SIGNING_SECRET, body) },
    body,
  });
  await response.text();
  return response.status;
}

// ---- what a malformed payload looks like ----

const WRONG_VALUES = [42, -1, 3.5, true, false, null, [], ['C0'], {}, { id: 'C0' }, '', ' '.repeat(3)];

const pick = <T,>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Sets `path` in a copy of `value` (undefined deletes it). */
function mutate<T>(value: T, path: string[], replacement: unknown): T {
  const copy = structuredClone(value) as Record<string, any>;
  let node = copy;
  for (const key of path.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== 'object') node[key] = {};
    node = node[key];
  }
  if (replacement === undefined) delete node[path.at(-1)!];
  else node[path.at(-1)!] = replacement;
  return copy as T;
}

/** A value of the wrong type for a required string field ('' and spaces are not valid ids or timestamps either). */
const wrongString = (random: Random) => pick(random, WRONG_VALUES.filter((v) => typeof v !== 'string' || v.trim() === ''));

function malformedEvent(random: Random): string {
  const ts = `17000${Math.floor(random() * 1e5)}.000100`;
  const mention = slackEventEnvelope(mentionEvent({ channel: CHANNEL, user: ANA, text: `<@U0BOT> hi`, ts }), { eventId: newEventId() });
  const reaction = slackEventEnvelope({ type: 'reaction_added', user: ANA, reaction: 'x', item: { type: 'message', channel: CHANNEL, ts } }, { eventId: newEventId() });
  const fileDeleted = slackEventEnvelope({ type: 'file_deleted', file_id: 'F0FILE' }, { eventId: newEventId() });
  const deleted = slackEventEnvelope({ type: 'message', subtype: 'message_deleted', channel: CHANNEL, deleted_ts: ts, ts }, { eventId: newEventId() });
  const cases: Array<() => unknown> = [
    () => mutate(mention, ['event', 'channel'], wrongString(random)),
    () => mutate(mention, ['event', 'channel'], undefined),
    () => mutate(mention, ['event', 'ts'], wrongString(random)),
    () => mutate(mention, ['event', 'ts'], 'yesterday'),
    () => mutate(mention, ['event', 'thread_ts'], pick(random, [7, {}, [], 'soon'])),
    () => mutate(mention, ['event', 'user'], pick(random, [7, {}, [], null])),
    () => mutate(mention, ['event', 'text'], pick(random, [7, {}, [], null])),
    () => mutate(mention, ['event', 'files'], pick(random, ['F1', 7, {}, [7], [{ name: 'x' }], [{ id: 9 }]])),
    () => mutate(mention, ['event'], pick(random, [null, 'app_mention', 7, [], [{}]])),
    () => mutate(mention, ['event', 'type'], pick(random, [null, 7, {}, []])),
    () => mutate(mention, ['event_id'], pick(random, [7, {}, []])),
    () => mutate(reaction, ['event', 'item'], pick(random, [null, 'message', 7, []])),
    () => mutate(reaction, ['event', 'item', 'channel'], wrongString(random)),
    () => mutate(reaction, ['event', 'reaction'], pick(random, [7, null, {}])),
    () => mutate(reaction, ['event', 'user'], undefined),
    () => mutate(fileDeleted, ['event', 'file_id'], wrongString(random)),
    () => mutate(deleted, ['event', 'deleted_ts'], pick(random, [undefined, 7, {}, 'nope'])),
    () => mutate(deleted, ['event', 'previous_message'], pick(random, ['gone', 7, []])),
  ];
  return JSON.stringify(pick(random, cases)());
}

function malformedInteraction(random: Random): string {
  const valid = {
    type: 'block_actions',
    user: { id: ANA },
    channel: { id: CHANNEL },
    message: { ts: '1700000000.000100', thread_ts: '1700000000.000100' },
    actions: [{ action_id: 'feedback_buttons', value: 'positive:1', type: 'feedback_buttons' }],
  };
  const cases: Array<() => string> = [
    () => JSON.stringify(mutate(valid, ['user'], pick(random, [undefined, null, 'U0ANA', 7]))),
    () => JSON.stringify(mutate(valid, ['user', 'id'], wrongString(random))),
    () => JSON.stringify(mutate(valid, ['actions'], pick(random, [undefined, null, [], 'click', {}, [7], [{}]]))),
    () => JSON.stringify(mutate(valid, ['actions', '0', 'action_id'], pick(random, [7, null, '']))),
    () => JSON.stringify(mutate(valid, ['channel'], pick(random, ['C0', 7, []]))),
    () => JSON.stringify(mutate(valid, ['message', 'thread_ts'], pick(random, [7, {}, 'later']))),
    () => JSON.stringify(mutate(valid, ['type'], pick(random, ['view_submission', 'shortcut', 7, null]))),
    () => pick(random, ['null', '[]', '7', '"block_actions"', '{"type":', '{}']),
  ];
  return new URLSearchParams({ payload: pick(random, cases)() }).toString();
}

function malformedCommand(random: Random): string {
  const fields: Record<string, string | string[]> = {
    command: '/ask',
    text: 'what is new?',
    user_id: BEN,
    channel_id: CHANNEL,
    team_id: 'T0TEAM',
    response_url: 'http://127.0.0.1:9/never',
  };
  const broken = { ...fields };
  switch (Math.floor(random() * 6)) {
    case 0:
      delete broken[pick(random, ['user_id', 'channel_id', 'text'])];
      break;
    case 1:
      broken[pick(random, ['user_id', 'channel_id'])] = ['U0A', 'U0B'];
      break;
    case 2:
      broken.response_url = pick(random, ['not a url', '']);
      break;
    case 3:
      broken.command = pick(random, ['/ask', '/other']) === '/ask' ? ['/ask', '/ask'] : '/other';
      break;
    case 4:
      broken.user_id = '';
      break;
    default:
      broken.text = ['a', 'b'];
  }
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(broken)) for (const item of [value].flat()) form.append(key, item);
  return form.toString();
}

function randomBody(random: Random): { body: string; type: string } {
  const bytes = Array.from({ length: 1 + Math.floor(random() * 60) }, () => String.fromCharCode(32 + Math.floor(random() * 95))).join('');
  return pick(random, [
    { body: bytes, type: 'application/json' },
    { body: bytes, type: 'application/x-www-form-urlencoded' },
    { body: JSON.stringify([bytes]), type: 'application/json' },
    { body: JSON.stringify({ type: bytes }), type: 'application/json' },
    { body: JSON.stringify({ type: 'event_callback', event: { type: bytes } }), type: 'application/json' },
    { body: `payload=${encodeURIComponent(bytes)}`, type: 'application/x-www-form-urlencoded' },
    { body: '', type: 'application/json' },
  ]);
}

describe('signed requests of unexpected shape', () => {
  it(`acknowledges ${REQUESTS} malformed requests without a 5xx, a stack trace or a Slack write, and stays healthy`, { timeout: 300_000 }, async () => {
    const random = seededRandom(SEED);
    const statuses: number[] = [];
    const callsBefore = h.slack.calls.length;
    const logsBefore = h.logs.length;
    for (let n = 0; n < REQUESTS; n++) {
      const kind = n % 4;
      if (kind === 0) statuses.push(await postRaw(malformedEvent(random), 'application/json'));
      else if (kind === 1) statuses.push(await postRaw(malformedInteraction(random), 'application/x-www-form-urlencoded'));
      else if (kind === 2) statuses.push(await postRaw(malformedCommand(random), 'application/x-www-form-urlencoded'));
      else {
        const { body, type } = randomBody(random);
        statuses.push(await postRaw(body, type));
      }
    }
    // Idle: every recorded delivery was processed (and, dropped, forgotten).
    await waitUntil(async () => Number(rowsOf<{ n: string }>(await h.database.db.execute(sql`select count(*) as n from slack_deliveries`))[0]!.n) === 0);

    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(REQUESTS * 0.9);
    const logs = h.logs.slice(logsBefore);
    expect(logs.filter((line) => /"stack"|\n\s+at /.test(line))).toEqual([]);
    expect(logs.filter((line) => line.includes('unhandled error') || line.includes('escaped Bolt'))).toEqual([]);
    expect(logs.filter((line) => line.includes('dropped a Slack payload of unexpected shape')).length).toBeGreaterThan(REQUESTS / 2);
    expect(h.slack.calls.slice(callsBefore).filter((call) => isWrite(call.method)).map((call) => call.method)).toEqual([]);
    expect(h.responses).toEqual([]);
    const health = await fetch(h.eventsUrl.replace('/slack/events', '/healthz'));
    expect(health.status).toBe(200);
  });

  it('tells a user over the rate limit once per window, however many questions they send', { timeout: 120_000 }, async () => {
    h.slack.reset();
    h.model.reset();
    h.model.setDefault({ text: 'Answered.' });
    const asker = 'U0BURST';
    h.slack.addUser({ id: asker, name: 'burst', displayName: 'Burst' });
    const sent = await Promise.all(
      Array.from({ length: 40 }, (_, n) => h.mention({ user: asker, text: `<@${h.slack.botUserId}> question ${n + 1} of my burst` })),
    );
    expect(sent.map((s) => s.status)).toEqual(sent.map(() => 200));
    // Every message decided: ten questions started runs, thirty were refused.
    await waitUntil(async () => Number(rowsOf<{ n: string }>(await h.database.db.execute(sql`select count(*) as n from slack_deliveries`))[0]!.n) === 0);
    await waitUntil(async () => Number(rowsOf<{ n: string }>(await h.database.db.execute(sql`select count(*) as n from runs where trigger_user_id = ${asker} and status = 'done'`))[0]!.n) === 10, 60_000);
    const refusals = h.slack.ephemerals.filter((e) => e.user === asker);
    expect(refusals.map((e) => e.text)).toEqual(['You’ve asked me 10 questions in the last minute, which is my limit. Give me a minute and ask again.']);
    const refusedLines = h.logs.filter((line) => line.includes('"message refused"') && line.includes(asker));
    expect(refusedLines).toHaveLength(30);
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
