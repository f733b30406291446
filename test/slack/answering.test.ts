/**
 * The walking skeleton, end to end: signed events into the real receiver, the real Web API and openai clients
 * against the fakes, PGlite underneath.
 */
import { describe, expect, it } from 'vitest';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, useHarness } from '../support/harness';
import { mentionEvent, postSlackEvent } from '../fakes/slack-signing';

const h = useHarness();

const userTexts = (request: { messages: Array<{ role: string; content: unknown }> }) =>
  request.messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: JSON.stringify(m.content) }));

describe('a mention', () => {
  it('gets exactly one answer, in the thread of the message', async () => {
    h.model.enqueue({ text: 'The deploy window is **Tuesday 10:00**.' });
    const { ts, status } = await h.mention({ text: '<@UBOT> when is the deploy window?'.replace('UBOT', h.slack.botUserId) });
    expect(status).toBe(200);

    const answers = await h.answers(CHANNEL, ts);
    expect(answers).toEqual(['The deploy window is **Tuesday 10:00**.']);
    const posted = h.slack.callsTo('chat.postMessage').concat(h.slack.callsTo('chat.startStream'));
    expect(posted.every((call) => call.body.thread_ts === ts)).toBe(true);
  });

  it('is answered once when Slack delivers the same event three times', async () => {
    h.model.setDefault({ delayMs: 300, then: { text: 'Once.' } });
    const stored = h.slack.addMessage(CHANNEL, { user: ANA, text: `<@${h.slack.botUserId}> hello` });
    const event = mentionEvent({ channel: CHANNEL, user: ANA, text: `<@${h.slack.botUserId}> hello`, ts: stored.ts });
    const eventId = 'Ev0RETRIED01';
    const statuses = await Promise.all(
      [undefined, 1, 2].map((retryNum) => postSlackEvent(h.eventsUrl, SIGNING_SECRET, event, { eventId, retryNum, retryReason: retryNum ? 'http_timeout' : undefined })),
    );
    expect(statuses.map((s) => s.status)).toEqual([200, 200, 200]);
    await h.answers(CHANNEL, stored.ts);
    await h.app.idle();
    expect(h.slack.botMessages(CHANNEL, stored.ts)).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
  });

  it('is answered once when it arrives as app_mention and as message', async () => {
    const text = `<@${h.slack.botUserId}> twice?`;
    const stored = h.slack.addMessage(CHANNEL, { user: ANA, text });
    await postSlackEvent(h.eventsUrl, SIGNING_SECRET, mentionEvent({ channel: CHANNEL, user: ANA, text, ts: stored.ts }));
    await postSlackEvent(h.eventsUrl, SIGNING_SECRET, { ...mentionEvent({ channel: CHANNEL, user: ANA, text, ts: stored.ts }), type: 'message', channel_type: 'channel' });
    await h.answers(CHANNEL, stored.ts);
    await h.app.idle();
    expect(h.slack.botMessages(CHANNEL, stored.ts)).toHaveLength(1);
  });

  it('never pings anyone the model mentions', async () => {
    h.model.enqueue({ text: 'Paging <!here> and <!channel> and <@U0BEN> now.' });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> who is on call?` });
    const [answer] = await h.answers(CHANNEL, ts);
    expect(answer).not.toMatch(/<!here>|<!channel>|<@U0BEN>/);
  });
});

describe('requests Slack did not sign', () => {
  it('are refused with 401 and cause no work', async () => {
    const stored = h.slack.addMessage(CHANNEL, { user: ANA, text: `<@${h.slack.botUserId}> forged` });
    const event = mentionEvent({ channel: CHANNEL, user: ANA, text: 'forged', ts: stored.ts });
    const forged = await postSlackEvent(h.eventsUrl, SIGNING_SECRET, event, { badSignature: true });
    const stale = await postSlackEvent(h.eventsUrl, SIGNING_SECRET, event, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(forged.status).toBe(401);
    expect(stale.status).toBe(401);
    await h.app.idle();
    expect(h.model.requests).toHaveLength(0);
    expect(h.slack.botMessages(CHANNEL, stored.ts)).toHaveLength(0);
  });
});

describe('the thread as a conversation', () => {
  it('shows the model who said what, in order, with the bot’s own replies as assistant turns', async () => {
    const parent = h.slack.addMessage(CHANNEL, { user: ANA, text: `<@${h.slack.botUserId}> our build is red` });
    h.slack.addMessage(CHANNEL, { user: h.slack.botUserId, bot_id: h.slack.botId, thread_ts: parent.ts, text: 'Which job fails?' });
    h.slack.addMessage(CHANNEL, { user: BEN, thread_ts: parent.ts, text: 'the lint job, see <@U0ANA>’s PR' });
    h.model.enqueue({ text: 'Run the linter locally.' });
    const { ts } = await h.mention({ threadTs: parent.ts, text: `<@${h.slack.botUserId}> what now?` });
    await h.answers(CHANNEL, parent.ts);

    const turns = userTexts(h.model.requests[0] as never);
    const joined = turns.map((t) => `${t.role}:${t.content}`);
    const order = ['our build is red', 'Which job fails?', 'the lint job', 'what now?'].map((text) => joined.findIndex((line) => line.includes(text)));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(joined[order[1]!]).toMatch(/^assistant:/);
    expect(joined[order[2]!]).toMatch(/^user:.*Ben/);
    expect(joined[order[2]!]).toContain('@Ana');
    expect(joined[order[0]!]).toContain('Ana');
    expect(ts).toBeTruthy();
  });

  it('answers follow-ups without a mention in a thread that began with one, and ignores other threads', async () => {
    h.model.setDefault({ text: 'Sure.' });
    const { ts: parentTs } = await h.mention({ text: `<@${h.slack.botUserId}> start` });
    await h.answers(CHANNEL, parentTs, 1);
    await h.say({ threadTs: parentTs, text: 'and a follow-up' });
    await h.answers(CHANNEL, parentTs, 2);

    const other = h.slack.addMessage(CHANNEL, { user: BEN, text: 'unrelated thread' });
    await h.say({ threadTs: other.ts, text: 'no mention here' });
    await h.app.idle();
    expect(h.slack.botMessages(CHANNEL, other.ts)).toHaveLength(0);
  });

  it('answers every direct message', async () => {
    h.slack.addChannel({ id: 'D0ANA', name: 'ana', isIm: true });
    h.model.enqueue({ text: 'Hi Ana.' });
    const { ts } = await h.say({ channel: 'D0ANA', text: 'hello there', channelType: 'im' });
    expect(await h.answers('D0ANA', ts)).toEqual(['Hi Ana.']);
  });
});

describe('/ask', () => {
  it('posts the question in the channel and answers in its thread', async () => {
    h.model.enqueue({ text: 'Forty-two.' });
    const response = await h.ask({ text: 'what is the answer?' });
    expect(response.status).toBe(200);
    await h.slack.waitFor((fake) => fake.botMessages(CHANNEL).some((m) => (m.text ?? '').includes('asked: what is the answer?')));
    const question = h.slack.botMessages(CHANNEL).find((m) => (m.text ?? '').includes('asked: what is the answer?'))!;
    expect(question.text).toBe(`<@${ANA}> asked: what is the answer?`);
    expect(await h.answers(CHANNEL, question.ts)).toEqual(['Forty-two.']);
    const request = JSON.stringify(h.model.requests[0]!.messages);
    expect(request).toContain('what is the answer?');
    expect(request).toContain('Ana');
  });

  it('without text answers with a usage note only the asker sees', async () => {
    const before = h.responses.length;
    await h.ask({ text: '' });
    await h.slack.waitFor(() => h.responses.length > before, 3000);
    expect(h.responses.at(-1)).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('/ask <your question>') });
    expect(h.model.requests).toHaveLength(0);
    expect(h.slack.botMessages(CHANNEL).filter((m) => (m.text ?? '').includes('asked:') && (m.text ?? '').endsWith('asked: '))).toHaveLength(0);
  });

  it('`skills` lists the skills with their descriptions, privately', async () => {
    const before = h.responses.length;
    await h.ask({ text: 'skills' });
    await h.slack.waitFor(() => h.responses.length > before, 3000);
    const text = String(h.responses.at(-1)!.text);
    for (const skill of ['large_files', 'jira', 'notion', 'slack']) expect(text).toContain(skill);
    expect(h.model.requests).toHaveLength(0);
  });
});

describe('failures', () => {
  it('end in a human sentence when the model is down, and the next mention is answered', async () => {
    h.model.enqueue({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> are you there?` });
    const [failure] = await h.answers(CHANNEL, ts, 1, 30_000);
    expect(failure).toMatch(/^Sorry — the AI model isn’t answering/);
    expect(failure).not.toMatch(/Error:|at .*\.ts/);

    h.model.reset();
    h.model.enqueue({ text: 'Back again.' });
    const next = await h.mention({ text: `<@${h.slack.botUserId}> and now?` });
    expect(await h.answers(CHANNEL, next.ts)).toEqual(['Back again.']);
  });
});

describe('health', () => {
  it('answers 200 on /healthz while the database answers', async () => {
    const response = await fetch(`http://127.0.0.1:${h.app.port}/healthz`);
    expect(response.status).toBe(200);
  });
});

describe('logs', () => {
  it('never contain the bot token, the signing secret or the model key', () => {
    const all = h.logs.join('\n');
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain(h.slack.botToken);
    expect(all).not.toContain(SIGNING_SECRET);
    expect(all).not.toContain('sk-test-key-0123456789abcdef');
  });
});
