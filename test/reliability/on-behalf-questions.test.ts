/**
 * Questions asked on someone's behalf — the Ask threadwise shortcuts (in a message's thread, or in a DM) and reaction
 * triggers — are recorded before they are posted, like `/ask`: what a process left when it died (recorded, maybe
 * posted, never admitted) is answered exactly once by the next start, posted only if it was not. A reaction
 * trigger's claim is written with its question, so a replay of the reaction cannot find a claim that asked nothing.
 */
import { sql } from 'drizzle-orm';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countReceipts, receiptsSettled, type ReceiptTable } from './support/recorded-receipts';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, startHarness, type Harness } from '../support/harness';
import { globalShortcut, messageShortcut, newEventId, postSlackEvent, reactionAddedEvent, slackEventEnvelope, viewSubmission } from '../fakes/slack-signing';
import { QUESTION_EVENT } from '../../src/conversation';
import { notePostedQuestion, recordQuestion, type NewPendingQuestion } from '../../src/store/delivery-store';
import { claimReactionTriggerQuestion } from '../../src/store/reaction-trigger-store';
import { saveChannelSettings } from '../../src/store/channel-settings-store';
import { findThread } from '../../src/store/thread-store';
import { listThreadRuns } from '../../src/store/run-store';
import { reactionTriggerClaims, slackDeliveries } from '../../src/store/schema';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => {
  h.slack.reset();
  h.model.reset();
});

const DEAD = 'dead-replica';
const count = (table: ReceiptTable) => countReceipts(h.database.db, table);
const settled = () => receiptsSettled(h.database.db);

/** The questions posted on someone's behalf ("<@U…> asked…: …"), optionally only those of one question. */
const questionsIn = (channel: string, threadTs?: string, question = '') =>
  h.slack.botMessages(channel, threadTs).filter((m) => /^<@U\w+> asked/.test(m.text ?? '') && (m.text ?? '').endsWith(question));
const botClient = () => new WebClient(h.slack.botToken, { slackApiUrl: h.slack.apiUrl });

async function runsOf(channel: string, threadTs: string) {
  const thread = await findThread(h.database.db, channel, threadTs);
  return thread ? listThreadRuns(h.database.db, thread.id) : [];
}

/** The thread the shortcut (or reaction) was used in: a parent and a reply. */
function aThread(text = 'The deploy failed at 14:02.') {
  const parent = h.slack.addMessage(CHANNEL, { user: ANA, text });
  const reply = h.slack.addMessage(CHANNEL, { user: ANA, text: 'Rollback is done.', thread_ts: parent.ts });
  return { parent, reply };
}

/** A question as the dead process recorded it (the same store call the live path makes). */
const recorded = (question: Omit<NewPendingQuestion, 'receivedBy'>) => recordQuestion(h.database.db, { ...question, receivedBy: DEAD });

describe('the message shortcut, left by a dead process', () => {
  it('recorded but never posted: the next start posts it in the thread and answers it once', async () => {
    const { parent } = aThread();
    h.model.enqueue({ text: 'The deploy failed on a migration lock.' });
    await recorded({ id: 'sq-unposted', channelId: CHANNEL, threadTs: parent.ts, userId: BEN, question: 'Why did it fail?', via: 'via the shortcut', engages: false });

    await h.restart();

    expect(await h.answers(CHANNEL, parent.ts)).toEqual(['The deploy failed on a migration lock.']);
    await settled();
    expect(questionsIn(CHANNEL, parent.ts).map((m) => m.text)).toEqual([`<@${BEN}> asked via the shortcut: Why did it fail?`]);
    expect(await runsOf(CHANNEL, parent.ts)).toMatchObject([{ triggerUserId: BEN }]);
    // A second start finds nothing left: still one question, one answer.
    await h.restart();
    await settled();
    expect(questionsIn(CHANNEL, parent.ts)).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
  });

  it('posted but never admitted: the next start finds it in the thread by its metadata and answers it without posting again', async () => {
    const { parent } = aThread();
    // Enough replies that the question is not on the first page of the thread.
    for (let i = 0; i < 5; i++) h.slack.addMessage(CHANNEL, { user: ANA, text: `log line ${i}`, thread_ts: parent.ts });
    h.model.enqueue({ text: 'Answered where it was asked.' });
    const posted = await botClient().chat.postMessage({
      channel: CHANNEL,
      thread_ts: parent.ts,
      text: `<@${BEN}> asked via the shortcut: Who rolled back?`,
      metadata: { event_type: QUESTION_EVENT, event_payload: { user_id: BEN, question: 'Who rolled back?', question_id: 'sq-posted' } },
    });
    await recorded({ id: 'sq-posted', channelId: CHANNEL, threadTs: parent.ts, userId: BEN, question: 'Who rolled back?', via: 'via the shortcut', engages: false });
    h.slack.maxPageSize = 3;
    try {
      await h.restart();
      expect(await h.answers(CHANNEL, parent.ts)).toEqual(['Answered where it was asked.']);
      await settled();
    } finally {
      h.slack.maxPageSize = 1000;
    }
    expect(questionsIn(CHANNEL, parent.ts).map((m) => m.ts)).toEqual([posted.ts]);
    expect(await runsOf(CHANNEL, parent.ts)).toMatchObject([{ triggerUserId: BEN, triggerTs: posted.ts }]);
  });
});

describe('the global shortcut (a DM), left by a dead process', () => {
  const dm = `D${ANA.slice(1)}`;

  it('recorded but never posted: posted in the asker’s DM and answered once', async () => {
    h.model.enqueue({ text: 'Friday.' });
    await recorded({ id: 'dq-unposted', channelId: ANA, userId: ANA, question: 'When is the release?', engages: true });

    await h.restart();

    await h.slack.waitFor(() => questionsIn(dm, undefined, 'When is the release?').length > 0, 15_000);
    const [question] = questionsIn(dm, undefined, 'When is the release?');
    expect(question!.text).toBe(`<@${ANA}> asked: When is the release?`);
    expect(await h.answers(dm, question!.ts)).toEqual(['Friday.']);
    await settled();
    expect(questionsIn(dm, undefined, 'When is the release?')).toHaveLength(1);
  });

  it('posted (and noted) but never admitted: answered in the DM, not posted again', async () => {
    h.model.enqueue({ text: 'Monday.' });
    const posted = await botClient().chat.postMessage({
      channel: ANA,
      text: `<@${ANA}> asked: When is the freeze?`,
      metadata: { event_type: QUESTION_EVENT, event_payload: { user_id: ANA, question: 'When is the freeze?', question_id: 'dq-posted' } },
    });
    await recorded({ id: 'dq-posted', channelId: ANA, userId: ANA, question: 'When is the freeze?', engages: true });
    await notePostedQuestion(h.database.db, 'dq-posted', { channelId: posted.channel!, ts: posted.ts! });

    await h.restart();

    expect(await h.answers(dm, posted.ts!)).toEqual(['Monday.']);
    await settled();
    expect(questionsIn(dm, undefined, 'When is the freeze?').map((m) => m.ts)).toEqual([posted.ts]);
  });
});

describe('reaction triggers, left by a dead process', () => {
  const claimOf = (messageTs: string, userId = BEN) => ({ channelId: CHANNEL, messageTs, reaction: 'memo', userId });
  const question = (id: string, threadTs: string): NewPendingQuestion => ({
    id,
    receivedBy: DEAD,
    channelId: CHANNEL,
    threadTs,
    userId: BEN,
    question: 'Summarise this thread in one line.',
    via: 'with :memo:',
    engages: false,
  });
  /** The reaction's delivery, acknowledged by the dead process and replayed by the next start. */
  const deliveryOf = (messageTs: string) =>
    slackEventEnvelope(reactionAddedEvent({ user: BEN, reaction: 'memo', channel: CHANNEL, ts: messageTs }), { teamId: h.slack.teamId, eventId: newEventId() });

  beforeAll(async () => {
    await saveChannelSettings(h.database.db, { teamId: h.slack.teamId, channelId: CHANNEL }, { reactionTriggers: { memo: 'Summarise this thread in one line.' } }, ANA);
  });

  it('claimed but never posted, its delivery replayed too: the next start asks once and answers once', async () => {
    const { parent, reply } = aThread('The build is red since Tuesday.');
    h.model.enqueue({ text: 'A flaky login test has kept the build red.' });
    expect(await claimReactionTriggerQuestion(h.database.db, claimOf(reply.ts), question('rq-unposted', parent.ts))).toBe(true);
    await h.database.db.insert(slackDeliveries).values({ id: 'reaction-of-a-dead-process', receivedBy: DEAD, body: deliveryOf(reply.ts) });

    await h.restart();

    expect(await h.answers(CHANNEL, parent.ts)).toEqual(['A flaky login test has kept the build red.']);
    await settled();
    expect(questionsIn(CHANNEL, parent.ts).map((m) => m.text)).toEqual([`<@${BEN}> asked with :memo:: Summarise this thread in one line.`]);
    expect(await runsOf(CHANNEL, parent.ts)).toMatchObject([{ triggerUserId: BEN }]);
    expect(h.model.requests).toHaveLength(1);
    // The claim stays: reacting again asks nothing.
    await postSlackEvent(h.eventsUrl, SIGNING_SECRET, reactionAddedEvent({ user: ANA, reaction: 'memo', channel: CHANNEL, ts: reply.ts }), { teamId: h.slack.teamId });
    await settled();
    expect(questionsIn(CHANNEL, parent.ts)).toHaveLength(1);
    expect(await h.database.db.select().from(reactionTriggerClaims)).toMatchObject([{ messageTs: reply.ts, userId: BEN }]);
  });

  it('posted but never admitted: answered without posting again', async () => {
    const { parent, reply } = aThread('Support queue doubled overnight.');
    h.model.enqueue({ text: 'A billing outage doubled the queue.' });
    expect(await claimReactionTriggerQuestion(h.database.db, claimOf(reply.ts), question('rq-posted', parent.ts))).toBe(true);
    const posted = await botClient().chat.postMessage({
      channel: CHANNEL,
      thread_ts: parent.ts,
      text: `<@${BEN}> asked with :memo:: Summarise this thread in one line.`,
      metadata: { event_type: QUESTION_EVENT, event_payload: { user_id: BEN, question: 'Summarise this thread in one line.', question_id: 'rq-posted' } },
    });

    await h.restart();

    expect(await h.answers(CHANNEL, parent.ts)).toEqual(['A billing outage doubled the queue.']);
    await settled();
    expect(questionsIn(CHANNEL, parent.ts).map((m) => m.ts)).toEqual([posted.ts]);
  });

  it('live: a question Slack never confirmed posting stays recorded with its claim, and the next start asks it once', async () => {
    const { parent, reply } = aThread('Disk usage alarms on db-2.');
    // Every attempt (the client's retries included) ends without Slack's answer: as if the process died there.
    h.slack.failNext('chat.postMessage', { status: 503 }, 5);
    await postSlackEvent(h.eventsUrl, SIGNING_SECRET, reactionAddedEvent({ user: BEN, reaction: 'memo', channel: CHANNEL, ts: reply.ts }), { teamId: h.slack.teamId });
    await h.slack.waitFor((fake) => fake.callsTo('chat.postMessage').length === 5, 20_000);
    await expect.poll(() => count('pending_questions'), { timeout: 5_000 }).toBe(1);
    expect(await h.database.db.select().from(reactionTriggerClaims).where(sql`message_ts = ${reply.ts}`)).toMatchObject([{ userId: BEN }]);
    expect(questionsIn(CHANNEL, parent.ts)).toEqual([]);

    h.model.enqueue({ text: 'The WAL archive filled the disk.' });
    await h.restart();

    expect(await h.answers(CHANNEL, parent.ts)).toEqual(['The WAL archive filled the disk.']);
    await settled();
    expect(questionsIn(CHANNEL, parent.ts).map((m) => m.text)).toEqual([`<@${BEN}> asked with :memo:: Summarise this thread in one line.`]);
    expect(await runsOf(CHANNEL, parent.ts)).toMatchObject([{ triggerUserId: BEN }]);
  }, 30_000);

  it('one Slack refuses on recovery is forgotten and its claim given back, so a new reaction asks', async () => {
    const { parent, reply } = aThread('Latency is up 30%.');
    expect(await claimReactionTriggerQuestion(h.database.db, claimOf(reply.ts), question('rq-refused', parent.ts))).toBe(true);
    h.slack.failNext('chat.postMessage', { error: 'not_in_channel' });

    await h.restart();
    await settled();
    expect(await h.database.db.select().from(reactionTriggerClaims).where(sql`message_ts = ${reply.ts}`)).toEqual([]);

    h.model.enqueue({ text: 'A cache node went down.' });
    await postSlackEvent(h.eventsUrl, SIGNING_SECRET, reactionAddedEvent({ user: ANA, reaction: 'memo', channel: CHANNEL, ts: reply.ts }), { teamId: h.slack.teamId });
    expect(await h.answers(CHANNEL, parent.ts)).toEqual(['A cache node went down.']);
    expect(await runsOf(CHANNEL, parent.ts)).toMatchObject([{ triggerUserId: ANA }]);
    await settled();
  });
});

describe('on-behalf questions asked normally', () => {
  it('leave no record behind once answered', async () => {
    const { parent, reply } = aThread();
    h.model.enqueue({ text: 'Shortcut answer.' });
    await h.interact(messageShortcut({ slack: h.slack, user: BEN, callbackId: 'threadwise_ask_message', channel: CHANNEL, message: { ts: reply.ts, thread_ts: parent.ts, user: ANA } }));
    await h.slack.waitFor((fake) => fake.callsTo('views.open').length === 1);
    const form = h.slack.callsTo('views.open')[0]!.body.view;
    const submitted = await h.interact(
      viewSubmission({ slack: h.slack, user: BEN, callbackId: 'threadwise_ask', privateMetadata: form.private_metadata, values: { question: { value: { type: 'plain_text_input', value: 'What broke?' } } } }),
    );
    expect(submitted.status).toBe(200);
    expect(await h.answers(CHANNEL, parent.ts)).toEqual(['Shortcut answer.']);

    h.model.enqueue({ text: 'DM answer.' });
    await h.interact(globalShortcut({ slack: h.slack, user: ANA, callbackId: 'threadwise_ask_global' }));
    await h.slack.waitFor((fake) => fake.callsTo('views.open').length === 2);
    const dmForm = h.slack.callsTo('views.open')[1]!.body.view;
    await h.interact(viewSubmission({ slack: h.slack, user: ANA, callbackId: 'threadwise_ask', privateMetadata: dmForm.private_metadata, values: { question: { value: { type: 'plain_text_input', value: 'Anything for me?' } } } }));
    const dm = `D${ANA.slice(1)}`;
    await h.slack.waitFor(() => questionsIn(dm, undefined, 'Anything for me?').length > 0, 15_000);
    expect(await h.answers(dm, questionsIn(dm, undefined, 'Anything for me?')[0]!.ts)).toEqual(['DM answer.']);
    await settled();
  });

  it('a shortcut question Slack refuses is said in the form and leaves no record', async () => {
    h.slack.failNext('chat.postMessage', { error: 'not_in_channel' });
    const response = await h.interact(
      viewSubmission({ slack: h.slack, user: BEN, callbackId: 'threadwise_ask', privateMetadata: JSON.stringify({ channelId: 'C0NOTIN' }), values: { question: { value: { type: 'plain_text_input', value: 'Hello?' } } } }),
    );
    expect(JSON.parse(response.body)).toMatchObject({ response_action: 'errors', errors: { question: expect.stringContaining('I’m not in that channel') } });
    await settled();
  });
});
