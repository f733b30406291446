/**
 * What a resumed run does with the half-written answer of the attempt that died: against the fake Slack, over
 * real HTTP, with the real Web API client.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebClient } from '@slack/web-api';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { retireDraftAnswer } from '../../src/slack/retire-draft-answer';
import { createLogger } from '../../src/logging/logger';

const CHANNEL = 'C0GENERAL';
const NOTE = {
  text: '_I was interrupted while answering — picking this up again now._',
  metadata: { event_type: 'threadwise_status', event_payload: { run_id: 4 } },
};

describe('retireDraftAnswer', () => {
  let slack: FakeSlack;
  let client: WebClient;
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(line) });

  beforeAll(async () => {
    slack = await startFakeSlack({ botName: 'threadwise' });
    client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(() => slack?.close());
  beforeEach(() => {
    slack.reset();
    slack.addUser({ id: 'U0ANA', name: 'ana', displayName: 'Ana' });
    slack.addChannel({ id: CHANNEL, name: 'general' });
    logs.length = 0;
  });

  /** A question, and the bot's answer to it cut off after `parts` messages: the first still streaming. */
  async function interruptedAnswer(parts: number) {
    const question = slack.addMessage(CHANNEL, { user: 'U0ANA', text: `<@${slack.botUserId}> the whole story?` });
    const started = await client.chat.startStream({ channel: CHANNEL, thread_ts: question.ts, markdown_text: 'Part one, half', recipient_user_id: 'U0ANA', recipient_team_id: slack.teamId });
    const drafts = [started.ts!];
    for (let i = 2; i <= parts; i++) {
      drafts.push((await client.chat.postMessage({ channel: CHANNEL, thread_ts: question.ts, text: `Part ${i}` })).ts!);
    }
    return { threadTs: question.ts, drafts };
  }

  it('turns the first part into the resuming note and deletes the rest', async () => {
    const { threadTs, drafts } = await interruptedAnswer(3);

    expect(await retireDraftAnswer(client, CHANNEL, drafts, NOTE, logger)).toBe(true);

    const left = slack.botMessages(CHANNEL, threadTs);
    expect(left.map((m) => ({ ts: m.ts, text: m.text, metadata: m.metadata }))).toEqual([
      { ts: drafts[0], text: NOTE.text, metadata: NOTE.metadata },
    ]);
  });

  it('deletes every part when the run gives up (no note)', async () => {
    const { threadTs, drafts } = await interruptedAnswer(2);
    expect(await retireDraftAnswer(client, CHANNEL, drafts, undefined, logger)).toBe(false);
    expect(slack.botMessages(CHANNEL, threadTs)).toEqual([]);
  });

  it('says the note is not there when the fragment was already deleted, so the caller posts it', async () => {
    const { drafts } = await interruptedAnswer(1);
    await client.chat.delete({ channel: CHANNEL, ts: drafts[0]! });

    expect(await retireDraftAnswer(client, CHANNEL, drafts, NOTE, logger)).toBe(false);
    expect(logs.some((line) => line.includes('could not turn the interrupted answer into the resuming note'))).toBe(true);
  });
});
