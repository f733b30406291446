/**
 * Exactly one answer per question, in-process: Slack's retries and double deliveries, messages that arrive while a
 * run works, Slack failing while the answer is posted, and what the logs may never contain.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, startHarness, type Harness } from '../support/harness';
import { mentionEvent, messageEvent, postInteraction, postSlackEvent, postSlashCommand } from '../fakes/slack-signing';
import { findThread } from '../../src/store/thread-store';
import { listThreadRuns } from '../../src/store/run-store';
import { eventually } from '../support/eventually';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => {
  h.slack.reset();
  h.model.reset();
});

async function runsOf(threadTs: string) {
  const thread = await findThread(h.database.db, CHANNEL, threadTs);
  return thread ? listThreadRuns(h.database.db, thread.id) : [];
}

describe('one answer per question', () => {
  it('answers once when Slack retries the event and also delivers the message as a `message` event', async () => {
    h.model.setDefault({ delayMs: 300, then: { text: 'Exactly once.' } });
    const text = `<@${h.slack.botUserId}> how many times will you answer?`;
    const stored = h.slack.addMessage(CHANNEL, { user: ANA, text });
    const asMention = mentionEvent({ channel: CHANNEL, user: ANA, text, ts: stored.ts });
    const asMessage = messageEvent({ channel: CHANNEL, user: ANA, text, ts: stored.ts, channel_type: 'channel' });
    const deliveries = await Promise.all([
      postSlackEvent(h.eventsUrl, SIGNING_SECRET, asMention, { eventId: 'Ev0ONCE0001' }),
      postSlackEvent(h.eventsUrl, SIGNING_SECRET, asMessage, { eventId: 'Ev0ONCE0002' }),
      postSlackEvent(h.eventsUrl, SIGNING_SECRET, asMention, { eventId: 'Ev0ONCE0001', retryNum: 1, retryReason: 'http_timeout' }),
      postSlackEvent(h.eventsUrl, SIGNING_SECRET, asMessage, { eventId: 'Ev0ONCE0002', retryNum: 2, retryReason: 'http_error' }),
    ]);
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200]);

    expect(await h.answers(CHANNEL, stored.ts)).toEqual(['Exactly once.']);
    await h.app.idle();
    expect(h.slack.botMessages(CHANNEL, stored.ts).filter((m) => m.metadata === undefined)).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
    expect(await runsOf(stored.ts)).toHaveLength(1);
  });

  it('answers three messages sent into a thread during a run in the next run, in order, never two runs at once', async () => {
    h.model.enqueue({ delayMs: 1_500, then: { text: 'The lint job is red.' } }, { text: 'All three: yes, since Monday, ask Ben.' });
    const { ts: threadTs } = await h.mention({ text: `<@${h.slack.botUserId}> why is the build red?` });
    await h.model.waitForRequests(1); // the first run is now working

    const follow = ['first: is it flaky?', 'second: since when?', 'third: who owns it?'];
    for (const text of follow) await h.say({ threadTs, text, user: text.startsWith('third') ? BEN : ANA });

    const answers = await h.answers(CHANNEL, threadTs, 2);
    expect(answers).toEqual(['The lint job is red.', 'All three: yes, since Monday, ask Ben.']);
    await h.app.idle();
    expect(h.model.requests).toHaveLength(2);

    // The second run saw the first answer, then the three messages, in the order they were written.
    const second = JSON.stringify(h.model.requests[1]!.messages);
    const positions = ['The lint job is red.', ...follow].map((text) => second.indexOf(text));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);

    const runs = await runsOf(threadTs);
    expect(runs.map((run) => ({ status: run.status, folded: run.foldedTs.length }))).toEqual([
      { status: 'done', folded: 0 },
      { status: 'done', folded: 2 },
    ]);
    expect(runs[1]!.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[0]!.finishedAt!.getTime());
  });
});

describe('Slack failing while the answer is posted', () => {
  it('waits out a 429 on chat.postMessage for its Retry-After, then posts the answer once', async () => {
    h.model.enqueue({ text: 'Posted after the rate limit.' });
    h.slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> rate limited?` });
    expect(await h.answers(CHANNEL, ts)).toEqual(['Posted after the rate limit.']);

    const posts = h.slack.callsTo('chat.postMessage').filter((call) => call.body.thread_ts === ts);
    expect(posts.map((call) => call.outcome)).toEqual(['http_429', 'ok']);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it('retries transient 5xx errors from Slack and posts the answer once', async () => {
    h.model.enqueue({ text: 'Posted through the 503s.' });
    h.slack.failNext('chat.postMessage', { status: 503 }, 2);
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> is Slack up?` });
    expect(await h.answers(CHANNEL, ts)).toEqual(['Posted through the 503s.']);
    const posts = h.slack.callsTo('chat.postMessage').filter((call) => call.body.thread_ts === ts);
    expect(posts.map((call) => call.outcome)).toEqual(['http_503', 'http_503', 'ok']);
  });

  it('stops at a permanent error (is_archived): logs it with the channel, no retry storm, the run ends failed', async () => {
    h.model.enqueue({ text: 'Nobody will see this.' });
    h.slack.refuse('chat.postMessage', 'is_archived');
    h.slack.refuse('chat.startStream', 'is_archived');
    const logsBefore = h.logs.length;
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> are you archived?` });

    await eventually(async () => (await runsOf(ts))[0]?.status === 'failed', { timeoutMs: 15_000 });
    await h.app.idle();
    const posts = h.slack.callsTo('chat.postMessage').filter((call) => call.body.thread_ts === ts);
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.length).toBeLessThanOrEqual(3); // the answer, the failure sentence, a status message at most
    expect(posts.every((call) => call.outcome === 'is_archived')).toBe(true);
    expect(h.model.requests).toHaveLength(1);
    const failure = h.logs.slice(logsBefore).map((line) => JSON.parse(line)).find((line) => line.level === 'error' && JSON.stringify(line).includes('is_archived'));
    expect(failure).toMatchObject({ channel: CHANNEL, threadTs: ts });
  });
});

describe('signature checks', () => {
  it('refuse unsigned, mis-signed and replayed requests of every kind, and do no work for them', async () => {
    const replayed = Math.floor(Date.now() / 1000) - 6 * 60; // outside Slack's five-minute window
    const stored = h.slack.addMessage(CHANNEL, { user: ANA, text: `<@${h.slack.botUserId}> forged?` });
    const event = mentionEvent({ channel: CHANNEL, user: ANA, text: stored.text!, ts: stored.ts });
    const command = { command: '/ask', text: 'forged question', user_id: ANA, channel_id: CHANNEL };
    const click = { type: 'block_actions', user: { id: ANA }, actions: [{ action_id: 'threadwise_feedback', value: 'positive:1' }] };
    const statuses = await Promise.all([
      fetch(h.eventsUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'event_callback', event }) }).then((r) => r.status),
      postSlackEvent(h.eventsUrl, SIGNING_SECRET, event, { badSignature: true }).then((r) => r.status),
      postSlackEvent(h.eventsUrl, SIGNING_SECRET, event, { timestamp: replayed }).then((r) => r.status),
      postSlashCommand(h.eventsUrl, SIGNING_SECRET, command, { badSignature: true }).then((r) => r.status),
      postSlashCommand(h.eventsUrl, SIGNING_SECRET, command, { timestamp: replayed }).then((r) => r.status),
      postInteraction(h.eventsUrl, SIGNING_SECRET, click, { badSignature: true }).then((r) => r.status),
      postInteraction(h.eventsUrl, SIGNING_SECRET, click, { timestamp: replayed }).then((r) => r.status),
    ]);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401]);
    await h.app.idle();
    expect(h.model.requests).toHaveLength(0);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
    expect(await runsOf(stored.ts)).toHaveLength(0);
  });
});

describe('logs', () => {
  it('never contain the bot token, the signing secret, the model key or a file’s contents', async () => {
    const secretLine = 'CONFIDENTIAL-PAYROLL-7731: salaries for Q3';
    const file = h.slack.addFile({ name: 'payroll.txt', mimetype: 'text/plain', content: `${secretLine}\n`.repeat(20) });
    h.model.enqueue({ text: 'I read the file.' });
    h.slack.failNext('conversations.replies', { status: 500 }); // an error path too, whose details get logged
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> summarise this`, files: [file] });
    await h.answers(CHANNEL, ts);
    expect(JSON.stringify(h.model.requests[0]!.messages)).toContain('CONFIDENTIAL-PAYROLL-7731');

    const all = h.logs.join('\n');
    expect(h.logs.length).toBeGreaterThan(20);
    for (const secret of [h.slack.botToken, SIGNING_SECRET, 'sk-test-key-0123456789abcdef', 'CONFIDENTIAL-PAYROLL-7731']) {
      expect(all).not.toContain(secret);
    }
  });
});
