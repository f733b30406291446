/**
 * Signed requests of unexpected shape — mutated events, interactions and commands, random bodies — as a changed
 * Slack, a broken proxy or a fuzzer would send them. Each is acknowledged without a 5xx, dropped with one log line
 * and no stack trace, and never reaches a listener: nothing is written to Slack for it. Seeded: a failure reruns.
 * Afterwards a well-formed mention is still answered, and neither its question nor its answer is in the debug logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, startHarness, type Harness } from '../support/harness';
import { seededRandom, type Random } from '../support/seeded-random';
import { mentionEvent, newEventId, signSlackRequest, slackEventEnvelope } from '../fakes/slack-signing';
import { eventually } from '../support/eventually';

const SEED = 1818;
const REQUESTS = 420;

let h: Harness;
beforeAll(async () => {
  // LOG_LEVEL=debug: Bolt and the Web API client log whole payloads there, which must not carry what people wrote.
  h = await startHarness({ env: { USER_RATE_LIMIT_PER_MINUTE: '10', LOG_LEVEL: 'debug' } });
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
    const failed: string[] = [];
    const callsBefore = h.slack.calls.length;
    const logsBefore = h.logs.length;
    for (let n = 0; n < REQUESTS; n++) {
      const kind = n % 4;
      const { body, type } =
        kind === 0
          ? { body: malformedEvent(random), type: 'application/json' }
          : kind === 1
            ? { body: malformedInteraction(random), type: 'application/x-www-form-urlencoded' }
            : kind === 2
              ? { body: malformedCommand(random), type: 'application/x-www-form-urlencoded' }
              : randomBody(random);
      const status = await postRaw(body, type);
      statuses.push(status);
      if (status >= 500) failed.push(`#${n} ${type} ${body}`);
    }
    // Idle: events are acknowledged before they are processed, in the order they came. A well-formed one sent last
    // reaches its listener only after everything before it was dropped (or handled).
    const sentinel = `F0SENTINEL${SEED}`;
    expect(await postRaw(JSON.stringify(slackEventEnvelope({ type: 'file_deleted', file_id: sentinel }, { eventId: newEventId() })), 'application/json')).toBe(200);
    await eventually(() => h.logs.some((line) => line.includes('a file was deleted in Slack') && line.includes(sentinel)), { timeoutMs: 30_000 });

    expect(failed).toEqual([]);
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

  it('answers a well-formed mention afterwards, and keeps its question and its answer out of the debug logs', { timeout: 60_000 }, async () => {
    h.model.setDefault({ text: 'The ledger colour is mauve-quartz.' });
    const logsBefore = h.logs.length;
    const { ts, status } = await h.mention({ user: ANA, text: `<@${h.slack.botUserId}> what colour is the purple-elephant ledger?` });
    expect(status).toBe(200);
    expect(await h.answers(CHANNEL, ts)).toEqual([expect.stringContaining('mauve-quartz')]);
    const logs = h.logs.slice(logsBefore).join('\n');
    // The payloads were logged (debug), with their text redacted.
    expect(logs).toContain('http request body');
    expect(logs).toContain('[redacted]');
    expect(logs).not.toContain('purple-elephant');
    expect(logs).not.toContain('mauve-quartz');
  });
});
