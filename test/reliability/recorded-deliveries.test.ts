/**
 * What is recorded before Slack hears back, in-process: deliveries and `/ask` questions a process left behind (it
 * died between the 200 and the run row) are picked up by the next start and answered once; what was handled leaves
 * no record behind. (The same, with a real process killed -9 at many points: acknowledged-questions.test.ts.)
 */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { receiptsSettled } from './support/recorded-receipts';
import { ANA, CHANNEL, startHarness, type Harness } from '../support/harness';
import { mentionEvent, slackEventEnvelope } from '../fakes/slack-signing';
import { QUESTION_EVENT } from '../../src/conversation';
import { pendingQuestions, slackDeliveries } from '../../src/store/schema';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => {
  h.slack.reset();
  h.model.reset();
});

const settled = () => receiptsSettled(h.database.db);

describe('recorded before the 200', () => {
  it('leaves no record once a mention is answered, nor for a delivery that needs no run', async () => {
    h.model.enqueue({ text: 'Answered.' });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> hello` });
    await h.answers(CHANNEL, ts);
    await h.say({ text: 'chatter nobody asked the bot about' });
    await settled();
  });

  it('replays a delivery a dead process acknowledged but never turned into a run, and answers it once', async () => {
    h.model.enqueue({ text: 'Answered after the crash.' });
    const text = `<@${h.slack.botUserId}> lost in the window?`;
    const message = h.slack.addMessage(CHANNEL, { user: ANA, text });
    const body = slackEventEnvelope(mentionEvent({ channel: CHANNEL, user: ANA, text, ts: message.ts }), { teamId: h.slack.teamId });
    await h.database.db.insert(slackDeliveries).values({ id: 'delivery-of-a-dead-process', receivedBy: 'dead-replica', body });

    await h.restart();

    expect(await h.answers(CHANNEL, message.ts)).toEqual(['Answered after the crash.']);
    await settled();
    // Replayed twice (a second start, or two replicas at once), it is still one answer: the event-id dedupe.
    await h.database.db.insert(slackDeliveries).values({ id: 'the-same-delivery-again', receivedBy: 'dead-replica', body });
    await h.restart();
    await settled();
    expect(await h.answers(CHANNEL, message.ts)).toEqual(['Answered after the crash.']);
  });

  it('/ask: posts and answers once a question recorded by a process that died before posting it', async () => {
    h.model.enqueue({ text: 'The answer to the recorded question.' });
    await h.database.db.insert(pendingQuestions).values({ id: 'q-never-posted', receivedBy: 'dead-replica', channelId: CHANNEL, userId: ANA, question: 'what is our SLA?' });

    await h.restart();

    await h.slack.waitFor(() => h.slack.botMessages(CHANNEL).some((m) => m.text?.includes('asked: what is our SLA?')), 15_000);
    const posted = h.slack.botMessages(CHANNEL).filter((m) => m.text?.includes('asked: what is our SLA?'));
    expect(posted).toHaveLength(1);
    expect(await h.answers(CHANNEL, posted[0]!.ts)).toEqual(['The answer to the recorded question.']);
    await settled();
  });

  it('/ask: answers without posting again a question its dead process had posted but not turned into a run', async () => {
    h.model.enqueue({ text: 'Answered in the posted thread.' });
    // Posted as the dead process did, with its question_id in the metadata.
    const question = await new WebClient(h.slack.botToken, { slackApiUrl: h.slack.apiUrl }).chat.postMessage({
      channel: CHANNEL,
      text: `<@${ANA}> asked: where are the release notes?`,
      metadata: { event_type: QUESTION_EVENT, event_payload: { user_id: ANA, question: 'where are the release notes?', question_id: 'q-posted' } },
    });
    await h.database.db.insert(pendingQuestions).values({ id: 'q-posted', receivedBy: 'dead-replica', channelId: CHANNEL, userId: ANA, question: 'where are the release notes?' });

    await h.restart();

    expect(await h.answers(CHANNEL, question.ts!)).toEqual(['Answered in the posted thread.']);
    await settled();
    expect(h.slack.botMessages(CHANNEL).filter((m) => m.text?.includes('asked: where are the release notes?'))).toHaveLength(1);
  });

  it('/ask: a question asked normally leaves no record behind', async () => {
    h.model.enqueue({ text: 'Quick answer.' });
    const response = await h.ask({ text: 'is the build green?' });
    expect(response.status).toBe(200);
    await h.slack.waitFor(() => h.slack.botMessages(CHANNEL).some((m) => m.text?.includes('asked: is the build green?')), 15_000);
    const posted = h.slack.botMessages(CHANNEL).find((m) => m.text?.includes('asked: is the build green?'))!;
    expect(await h.answers(CHANNEL, posted.ts)).toEqual(['Quick answer.']);
    await settled();
  });
});
