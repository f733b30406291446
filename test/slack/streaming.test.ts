/**
 * The answer streams into the thread: chat.startStream → appendStream → stopStream, the pieces adding up to what
 * the model wrote, the feedback buttons arriving with the stop. Where Slack refuses streaming, one message is
 * posted and edited. Past one message's limit the answer continues in new messages.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANA, CHANNEL, startHarness, textOf, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => {
  h.slack.reset();
  h.model.reset();
});

const mention = (text: string) => h.mention({ text: `<@${h.slack.botUserId}> ${text}` });
const streamText = (body: Record<string, unknown>) => (typeof body.markdown_text === 'string' ? body.markdown_text : '');

/** A model that thinks aloud before each of two tool rounds (with pauses, so the text goes out in three pieces). */
function scriptThreeParts() {
  h.model.enqueue(
    { text: 'Let me load the jira skill.', toolCalls: [{ name: 'load_skill', arguments: { name: 'jira' } }] },
    { delayMs: 1_200, then: { text: 'Now the notion one, to compare.', toolCalls: [{ name: 'load_skill', arguments: { name: 'notion' } }] } },
    { delayMs: 1_200, then: { text: 'Use **Jira** for bugs and Notion for specs.' } },
  );
  return 'Let me load the jira skill.\n\nNow the notion one, to compare.\n\nUse **Jira** for bugs and Notion for specs.';
}

describe('streaming', () => {
  it('starts, appends and stops a stream whose pieces add up to the model’s text, with the feedback buttons at the stop', async () => {
    const expected = scriptThreeParts();
    const { ts } = await mention('jira or notion?');
    await h.answers(CHANNEL, ts);

    const calls = h.slack.calls.filter((call) => call.method.startsWith('chat.') && call.method.endsWith('Stream'));
    expect(calls.map((call) => call.method)).toEqual(['chat.startStream', 'chat.appendStream', 'chat.stopStream']);
    expect(calls.every((call) => call.outcome === 'ok')).toBe(true);
    const [start, , stop] = calls;
    // A channel, not a DM: Slack wants to know whom the stream is for.
    expect(start!.body).toMatchObject({ channel: CHANNEL, thread_ts: ts, recipient_user_id: ANA, recipient_team_id: h.slack.teamId });
    expect(calls.map((call) => streamText(call.body)).join('')).toBe(expected);
    expect(JSON.stringify(stop!.body.blocks)).toContain('"type":"feedback_buttons"');

    const [answer] = h.slack.botMessages(CHANNEL, ts);
    expect(answer!.text).toBe(expected);
    expect(h.slack.callsTo('chat.update')).toHaveLength(0);
  });

  it('falls back to one message edited as the text grows when Slack refuses to stream', async () => {
    h.slack.refuse('chat.startStream', 'not_allowed_token_type');
    const expected = scriptThreeParts();
    const { ts } = await mention('jira or notion?');
    const [answer] = await h.answers(CHANNEL, ts);

    expect(answer).toBe(expected);
    expect(h.slack.callsTo('chat.startStream')).toHaveLength(1); // tried once, not for every piece
    expect(h.slack.callsTo('chat.appendStream')).toHaveLength(0);
    const placeholder = h.slack.callsTo('chat.postMessage').find((call) => call.body.thread_ts === ts)!;
    expect(placeholder.body.text).toBe('Let me load the jira skill.');
    const updates = h.slack.callsTo('chat.update');
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.every((call) => call.outcome === 'ok')).toBe(true);
    // Each edit shows more of the same text; the last one is the finished answer with the buttons.
    const shown = updates.map((call) => textOf(call.body as never));
    shown.forEach((text, i) => i > 0 && expect(text.startsWith(shown[i - 1]!.slice(0, 20))).toBe(true));
    expect(JSON.stringify(updates.at(-1)!.body.blocks)).toContain('feedback_buttons');
    expect(h.slack.botMessages(CHANNEL, ts)).toHaveLength(1);
  });

  it('continues a long answer in new messages, each within Slack’s limits, the buttons under the last', async () => {
    const paragraphs = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}: ${'the quarterly figures are explained in detail here. '.repeat(8).trim()}`);
    const long = paragraphs.join('\n\n');
    h.model.enqueue({ text: long });
    const { ts } = await mention('explain everything');
    await h.answers(CHANNEL, ts);
    await h.slack.waitFor((fake) => JSON.stringify(fake.botMessages(CHANNEL, ts).at(-1)?.blocks ?? []).includes('feedback_buttons'));

    const messages = h.slack.botMessages(CHANNEL, ts);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    const texts = messages.map((m) => textOf(m as never));
    expect(texts.every((text) => text.length <= 12_000)).toBe(true);
    // Cut between paragraphs: every paragraph arrives whole, in order.
    expect(texts.join('\n\n')).toBe(long);
    expect(messages.slice(0, -1).every((m) => !JSON.stringify(m.blocks ?? []).includes('feedback_buttons'))).toBe(true);
    expect(h.slack.callsTo('chat.stopStream')).toHaveLength(1);
  });
});
