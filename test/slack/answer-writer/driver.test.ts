/**
 * The answer writer as the run uses it — the real Web API client over real HTTP against the fake Slack — with time
 * on a fake clock: flushes and edit slots happen when the test moves the clock, never by sleeping.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebClient } from '@slack/web-api';
import { startFakeSlack, type FakeSlack } from '../../fakes/fake-slack';
import { textOf } from '../../support/harness';
import { createAnswerWriter, type AnswerWriterOptions } from '../../../src/slack/answer-writer';
import { createLogger } from '../../../src/logging/logger';
import { createFakeClock, type FakeClock } from '../../support/test-clock';

const DM = 'D0ANA';
const ANA = 'U0ANA';

describe('the answer writer, driven by a fake clock', () => {
  let slack: FakeSlack;
  let client: WebClient;
  let clock: FakeClock;
  let threadTs: string;
  let named: string[];
  const logs: string[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack({ botName: 'threadwise' });
    client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
    slack.addChannel({ id: DM, name: 'ana', isIm: true });
  });
  afterAll(() => slack?.close());
  beforeEach(() => {
    slack.reset();
    clock = createFakeClock();
    threadTs = slack.addMessage(DM, { user: ANA, text: 'the whole story, please' }).ts;
    named = [];
    logs.length = 0;
  });

  const writerWith = (options: Partial<AnswerWriterOptions> = {}) =>
    createAnswerWriter(
      client,
      { channel: DM, threadTs },
      {
        stream: true,
        logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
        clock,
        onMessage: async (ts) => {
          named.push(ts);
        },
        ...options,
      },
    );
  const chatCalls = () => slack.calls.filter((call) => call.method.startsWith('chat.'));
  const thread = () => slack.botMessages(DM, threadTs);
  const paragraphs = (count: number) => Array.from({ length: count }, (_, i) => `Paragraph ${i + 1}: ${'words that fill the message '.repeat(2).trim()}.`);

  it('sends nothing before the flush interval, then streams pieces that add up to the answer', async () => {
    const writer = writerWith();
    writer.append('Let me look');
    clock.advance(699);
    expect(chatCalls()).toHaveLength(0); // the flush timer has not fired, so no call can have started
    clock.advance(1);
    await slack.waitFor(() => named.length === 1);
    writer.append(' that up.');
    clock.advance(700);
    await slack.waitFor((fake) => fake.callsTo('chat.appendStream').length === 1);

    const posted = await writer.finish('Let me look that up.', { runId: 3 });

    expect(chatCalls().map((call) => call.method)).toEqual(['chat.startStream', 'chat.appendStream', 'chat.stopStream']);
    expect(chatCalls().map((call) => call.body.markdown_text ?? '')).toEqual(['Let me look', ' that up.', '']);
    expect(posted).toEqual(named);
    expect(thread().map((message) => message.text)).toEqual(['Let me look that up.']);
    expect(JSON.stringify(thread()[0]!.blocks)).toContain('feedback_3');
  });

  it('where streaming is refused, edits the posted message no sooner than the update interval after the last edit', async () => {
    slack.refuse('chat.startStream', 'not_allowed_token_type');
    const writer = writerWith();
    writer.append('Let me load the jira skill.');
    clock.advance(700);
    await slack.waitFor(() => named.length === 1); // posted and named at 700 ms
    writer.append(' Now the notion one.');
    clock.advance(700); // 1,400 ms: 300 ms short of the edit slot
    await slack.waitFor(() => clock.pending() === 1); // the flush decided to wait for the slot
    expect(slack.callsTo('chat.update')).toHaveLength(0);
    clock.advance(300);
    await slack.waitFor((fake) => fake.callsTo('chat.update').length === 1);
    expect(textOf(thread()[0]!)).toBe('Let me load the jira skill. Now the notion one.');

    const posted = await writer.finish('Use Jira for bugs.', { runId: 4 });

    expect(slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(posted).toEqual(named);
    expect(thread()).toHaveLength(1);
    expect(textOf(thread()[0]!)).toBe('Use Jira for bugs.');
  });

  it('stops the live message where the first message of the answer will end, and continues the rest in new messages', async () => {
    const all = paragraphs(6);
    const writer = writerWith({ streamLimit: 200 });
    writer.append(all.join('\n\n'));
    clock.advance(700);
    await slack.waitFor(() => named.length === 1);
    const onScreen = textOf(thread()[0]!);
    writer.append(' A last sentence.');
    expect(clock.pending()).toBe(0); // full: nothing more is streamed until the end

    const posted = await writer.finish(`${all.join('\n\n')} A last sentence.`, { runId: 5 });

    const texts = thread().map((message) => textOf(message));
    expect(texts[0]).toBe(onScreen); // the stream was stopped with nothing added: it already held its whole part
    expect(texts.every((text) => text.length <= 200)).toBe(true);
    expect(texts.join('\n\n')).toBe(`${all.join('\n\n')} A last sentence.`);
    expect(posted).toEqual(named);
    expect(thread().map((message) => JSON.stringify(message.blocks ?? []).includes('feedback_5'))).toEqual(texts.map((_, i) => i === texts.length - 1));
  });

  it('when a continuation is refused, rewrites the answer into the messages already there and deletes what is left over', async () => {
    const all = paragraphs(6);
    const writer = createAnswerWriter(
      client,
      { channel: DM, threadTs },
      {
        stream: true,
        streamLimit: 200,
        clock,
        logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
        onMessage: async (ts) => {
          named.push(ts);
          // The second message is out: Slack refuses the third.
          if (named.length === 2) slack.failNext('chat.postMessage', { error: 'ratelimited' });
        },
      },
    );
    writer.append(all[0]!);
    clock.advance(700);
    await slack.waitFor(() => named.length === 1);

    const posted = await writer.finish(all.join('\n\n'), { runId: 6 });

    // Re-cut at Slack's own limit the answer fits one message: the first holds it all, the second is gone.
    expect(posted).toEqual([named[0]]);
    expect(slack.callsTo('chat.delete').map((call) => call.body.ts)).toEqual([named[1]]);
    expect(thread().map((message) => textOf(message))).toEqual([all.join('\n\n')]);
    expect(logs.some((line) => line.includes('could not complete the streamed answer; replacing it'))).toBe(true);
  });

  it('fail() after a long answer turns its first message into the sentence and deletes the others', async () => {
    const all = paragraphs(6);
    const writer = writerWith({ streamLimit: 200 });
    writer.append(all.join('\n\n'));
    clock.advance(700);
    const answered = await writer.finish(all.join('\n\n'), { runId: 7 });
    expect(answered.length).toBeGreaterThan(1);

    const failed = await writer.fail('Sorry — something went wrong after the answer.');

    expect(failed).toEqual([answered[0]]);
    expect(thread().map((message) => textOf(message))).toEqual(['Sorry — something went wrong after the answer.']);
  });

  it('rejects finish when Slack refuses the answer itself, and fail() still reaches the thread', async () => {
    const writer = writerWith({ stream: false });
    writer.append('An answer.');
    slack.failNext('chat.postMessage', { error: 'msg_too_long' });

    await expect(writer.finish('An answer.', { runId: 8 })).rejects.toThrow(/msg_too_long/);
    expect(await writer.fail('Sorry — Slack refused the answer.')).toHaveLength(1);
    expect(thread().map((message) => textOf(message))).toEqual(['Sorry — Slack refused the answer.']);
    expect(clock.pending()).toBe(0);
  });
});
