/**
 * While it works, the thread shows what it is doing: Slack's native status (assistant.threads.setStatus) per step,
 * and where that is refused, a status message with a Stop button, recorded on the run and deleted at the end.
 */
import { describe, expect, it } from 'vitest';
import { CHANNEL, useHarness } from '../support/harness';
import { findActiveRunByMessage, listThreadRuns } from '../../src/store/run-store';
import { findThread } from '../../src/store/thread-store';
import { WebClient } from '@slack/web-api';
import { createStatusIndicator } from '../../src/slack/status-indicator';
import { createLogger } from '../../src/logging/logger';

const h = useHarness();

const mention = (text: string) => h.mention({ text: `<@${h.slack.botUserId}> ${text}` });
/** The status is cleared just after the answer lands. */
const cleared = (ts: string) => h.slack.waitFor((fake) => fake.statuses(CHANNEL, ts).at(-1) === '');

describe('the native status', () => {
  it('names each step in order — reading, thinking, the tools of a round together, thinking — then clears', async () => {
    const notes = h.slack.addFile({ name: 'notes.txt', mimetype: 'text/plain', content: Buffer.from('Q3 revenue: 4.2 M€\n') });
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'load_file', arguments: { id: 'F1' } },
          { name: 'load_skill', arguments: { name: 'jira' } },
        ],
      },
      { text: 'Filed as a Jira bug: Q3 revenue 4.2 M€.' },
    );
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> file this as a jira bug`, files: [notes] });
    await h.answers(CHANNEL, ts);
    await cleared(ts);

    expect(h.slack.statuses(CHANNEL, ts)).toEqual(['Reading the thread…', 'Thinking…', 'reading notes.txt… · loading the jira skill…', 'Thinking…', '']);
    const thinking = h.slack.callsTo('assistant.threads.setStatus').find((call) => call.body.status === 'Thinking…');
    expect(thinking?.body.loading_messages).toContain('Thinking…');
    // Nothing of the status is left in the thread: one message, the answer.
    expect(h.slack.botMessages(CHANNEL, ts)).toHaveLength(1);
  });

  it('tells the thread when the model is rate-limited and it is waiting', async () => {
    h.model.enqueue({ status: 429, retryAfter: 1 }, { text: 'Here you go.' });
    const { ts } = await mention('quick one');
    expect(await h.answers(CHANNEL, ts)).toEqual(['Here you go.']);
    await cleared(ts);
    expect(h.slack.statuses(CHANNEL, ts)).toEqual(['Reading the thread…', 'Thinking…', 'The AI model is busy — trying again in 1 s…', '']);
    expect(h.model.requests).toHaveLength(2);
  });
});

describe('where Slack refuses the native status', () => {
  it('posts a status message with a Stop button, records it on the run, edits it (at most once a second) and deletes it at the end', async () => {
    h.slack.refuse('assistant.threads.setStatus', 'not_allowed_token_type');
    h.model.enqueue({ delayMs: 1_500, then: { toolCalls: [{ name: 'load_skill', arguments: { name: 'jira' } }] } }, { delayMs: 1_500, then: { text: 'Use the bug template.' } });
    const { ts } = await mention('how do I file a bug?');

    await h.slack.waitFor((fake) => fake.callsTo('chat.postMessage').some((call) => call.body.metadata?.event_type === 'threadwise_status'));
    const post = h.slack.callsTo('chat.postMessage').find((call) => call.body.metadata?.event_type === 'threadwise_status')!;
    const statusTs = h.slack.botMessages(CHANNEL, ts).find((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === 'threadwise_status')!.ts;
    expect(JSON.stringify(post.body.blocks)).toContain('"action_id":"threadwise_cancel"');
    // A :x: on this message finds the run: its ts is on the run row.
    await expect.poll(async () => (await findActiveRunByMessage(h.database.db, CHANNEL, statusTs))?.id).toBeGreaterThan(0);

    expect(await h.answers(CHANNEL, ts)).toEqual(['Use the bug template.']);
    // Statuses that come faster than one edit a second are merged; the one showing while the model thinks is not lost.
    const edits = h.slack.callsTo('chat.update').filter((call) => call.body.ts === statusTs).map((call) => call.body.text);
    expect(edits[0]).toBe('_Thinking…_');
    expect(edits.every((text) => ['_Thinking…_', '_loading the jira skill…_'].includes(text))).toBe(true);
    await h.slack.waitFor((fake) => fake.callsTo('chat.delete').length > 0);
    expect(h.slack.callsTo('chat.delete').map((call) => call.body.ts)).toEqual([statusTs]);
    expect(h.slack.botMessages(CHANNEL, ts).map((m) => m.ts)).not.toContain(statusTs);
    const thread = await findThread(h.database.db, CHANNEL, ts);
    await expect.poll(async () => (await listThreadRuns(h.database.db, thread!.id))[0]!.statusMessageTs).toBeNull();
  });
});

describe('the status indicator on its own', () => {
  const indicatorFor = (threadTs: string, refreshMs?: number) =>
    createStatusIndicator(
      new WebClient(h.slack.botToken, { slackApiUrl: h.slack.apiUrl, retryConfig: { retries: 0 } }),
      { channel: CHANNEL, threadTs, triggerTs: threadTs },
      { logger: createLogger({ level: 'error', write: () => {} }), refreshMs },
    );

  it('applies a burst of statuses in the order they were set', async () => {
    const status = indicatorFor('1700000500.000100');
    const sets = ['one…', 'two…', 'three…', 'four…'].map((step) => status.set(step));
    await sets.at(-1);
    await status.clear();
    expect(h.slack.statuses(CHANNEL, '1700000500.000100')).toEqual(['one…', 'two…', 'three…', 'four…', '']);
  });

  it('clears last, even in the middle of a burst: statuses still waiting are dropped, none lands after the clear', async () => {
    const status = indicatorFor('1700000550.000100');
    for (const step of ['one…', 'two…', 'three…', 'four…']) void status.set(step);
    await status.clear();
    void status.set('too late…');
    const sent = h.slack.statuses(CHANNEL, '1700000550.000100');
    expect(sent.at(-1)).toBe('');
    expect(sent.slice(0, -1)).toEqual(['one…', 'two…', 'three…', 'four…'].slice(0, sent.length - 1));
    expect(h.slack.callsTo('assistant.threads.setStatus').filter((call) => call.body.status === 'too late…')).toHaveLength(0);
  });

  it('re-sends the native status during a long step, since Slack drops it after two minutes', async () => {
    const status = indicatorFor('1700000600.000100', 50);
    await status.set('reading big.pdf…');
    await h.slack.waitFor((fake) => fake.statuses(CHANNEL, '1700000600.000100').length >= 3);
    await status.clear();
    const sent = h.slack.statuses(CHANNEL, '1700000600.000100');
    expect(sent.at(-1)).toBe('');
    expect(new Set(sent.slice(0, -1))).toEqual(new Set(['reading big.pdf…']));
  });
});
