/**
 * The answer streams into the thread: chat.startStream → appendStream → stopStream, the pieces adding up to what
 * the model wrote, the feedback buttons arriving with the stop. Where Slack refuses streaming, one message is
 * posted and edited. Past one message's limit the answer continues in new messages.
 */
import { describe, expect, it } from 'vitest';
import { WebClient } from '@slack/web-api';
import { ANA, CHANNEL, useHarness, textOf } from '../support/harness';
import { createAnswerWriter } from '../../src/slack/answer-writer';
import { createLogger } from '../../src/logging/logger';

const h = useHarness();

const mention = (text: string) => h.mention({ text: `<@${h.slack.botUserId}> ${text}` });
const streamText = (body: Record<string, unknown>) => (typeof body.markdown_text === 'string' ? body.markdown_text : '');

/** A model that thinks aloud before each of two tool rounds (with pauses, so the text goes out in three pieces). */
function scriptThreeParts() {
  h.model.enqueue(
    { text: 'Let me load the jira skill.', toolCalls: [{ name: 'load_skill', arguments: { name: 'jira' } }] },
    { delayMs: 1_800, then: { text: 'Now the notion one, to compare.', toolCalls: [{ name: 'load_skill', arguments: { name: 'notion' } }] } },
    { delayMs: 1_800, then: { text: 'Use **Jira** for bugs and Notion for specs.' } },
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

  it('shows only the retried answer when the model drops its stream half-way', async () => {
    h.model.enqueue({ text: 'Revenue in Q3 was four point two million', disconnectAfterChunks: 3 }, { text: 'Revenue in Q3 was 4.2 M€.' });
    const { ts } = await mention('q3 revenue?');
    expect(await h.answers(CHANNEL, ts)).toEqual(['Revenue in Q3 was 4.2 M€.']);
    expect(h.model.requests).toHaveLength(2);
    // Whether or not the dropped text had been shown, nothing of it is left in the thread.
    expect(JSON.stringify(h.slack.botMessages(CHANNEL, ts))).not.toContain('four point two');
  });

  it('continues a long answer in new messages, each within Slack’s limits, the buttons under the last', async () => {
    const paragraphs = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}: ${'the quarterly figures are explained in detail here. '.repeat(8).trim()}`);
    const long = paragraphs.join('\n\n');
    // A preamble and a pause first, so the stream is open when the long text arrives.
    h.model.enqueue(
      { text: 'Let me read the skill first.', toolCalls: [{ name: 'load_skill', arguments: { name: 'slack' } }] },
      { delayMs: 2_000, then: { text: long } },
    );
    const { ts } = await mention('explain everything');
    await h.answers(CHANNEL, ts);
    await h.slack.waitFor((fake) => JSON.stringify(fake.botMessages(CHANNEL, ts).at(-1)?.blocks ?? []).includes('feedback_buttons'));

    const messages = h.slack.botMessages(CHANNEL, ts);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    const texts = messages.map((m) => textOf(m as never));
    expect(texts.every((text) => text.length <= 12_000)).toBe(true);
    // Cut between paragraphs: every paragraph arrives whole, in order.
    expect(texts.join('\n\n')).toBe(`Let me read the skill first.\n\n${long}`);
    expect(messages.slice(0, -1).every((m) => !JSON.stringify(m.blocks ?? []).includes('feedback_buttons'))).toBe(true);
    expect(h.slack.callsTo('chat.stopStream')).toHaveLength(1);
  });
});

describe('the answer writer on its own', () => {
  const writerFor = (threadTs: string, extra: { onMessage?: (ts: string) => Promise<void>; streamLimit?: number } = {}) =>
    createAnswerWriter(
      new WebClient(h.slack.botToken, { slackApiUrl: h.slack.apiUrl, retryConfig: { retries: 0 } }),
      { channel: 'D0ANA', threadTs },
      { stream: true, logger: createLogger({ level: 'error', write: () => {} }), flushIntervalMs: 10, ...extra },
    );

  it('names every message it starts, before any more of the answer goes out', async () => {
    h.slack.addChannel({ id: 'D0ANA', name: 'ana', isIm: true });
    const question = h.slack.addMessage('D0ANA', { user: ANA, text: 'the long version, please' });
    const named: Array<{ ts: string; callsSoFar: number }> = [];
    const callsSoFar = () => h.slack.callsTo('chat.appendStream').length + h.slack.callsTo('chat.stopStream').length;
    const writer = writerFor(question.ts, {
      streamLimit: 200,
      // Slow, like a database write on a busy machine: what goes out meanwhile is counted when it returns.
      onMessage: async (ts) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        named.push({ ts, callsSoFar: callsSoFar() });
      },
    });
    const paragraphs = Array.from({ length: 6 }, (_, i) => `Paragraph ${i + 1}: ${'words that fill the message '.repeat(2).trim()}.`);
    writer.append(`${paragraphs[0]}\n\n`);
    await h.slack.waitFor((fake) => fake.callsTo('chat.startStream').length === 1);
    writer.append(paragraphs[1]!); // would be appended within 10 ms if the writer did not wait for the name
    await h.slack.waitFor(() => named.length === 1);
    writer.append(`\n\n${paragraphs.slice(2).join('\n\n')}`);

    const posted = await writer.finish(paragraphs.join('\n\n'), { runId: 8 });

    expect(posted.length).toBeGreaterThan(1);
    expect(named.map((entry) => entry.ts)).toEqual(posted);
    expect(named[0]!.callsSoFar).toBe(0); // the streamed message was named before anything was appended to it
  });

  it('replaces text that was shown and then voided (a retried model call) with the final answer', async () => {
    h.slack.addChannel({ id: 'D0ANA', name: 'ana', isIm: true });
    const question = h.slack.addMessage('D0ANA', { user: ANA, text: 'q3 revenue?' });
    const writer = writerFor(question.ts);
    writer.append('Let me check.');
    writer.breakParagraph();
    writer.append('Revenue in Q3 was four point');
    await h.slack.waitFor((fake) => fake.callsTo('chat.appendStream').length > 0 || (fake.botMessages('D0ANA', question.ts)[0]?.text ?? '').includes('four'));
    writer.discardSinceBreak();
    writer.append('Revenue in Q3 was 4.2 M€.');

    const [ts] = await writer.finish('Revenue in Q3 was 4.2 M€.', { runId: 7 });

    const [message] = h.slack.botMessages('D0ANA', question.ts);
    expect(message!.ts).toBe(ts);
    expect(textOf(message as never)).toBe('Let me check.\n\nRevenue in Q3 was 4.2 M€.');
    expect(JSON.stringify(message!.blocks)).toContain('feedback_7');
    // In a DM no recipient is needed.
    expect(h.slack.callsTo('chat.startStream')[0]!.body.recipient_user_id).toBeUndefined();
  });
});
