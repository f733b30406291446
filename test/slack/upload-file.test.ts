/**
 * Uploads through Slack's current flow against the fake Slack over real HTTP: the bytes land in the right
 * channel and thread, and the bot token goes to the Web API only, never with the bytes to the upload URL.
 */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackUploadError, uploadFileToThread } from '../../src/slack/upload-file';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';

let slack: FakeSlack;
let client: WebClient;

beforeAll(async () => {
  slack = await startFakeSlack();
  client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, timeout: 5_000 });
});
afterAll(() => slack.close());

describe('uploadFileToThread', () => {
  it('reserves, uploads and shares the file into the thread, sending the token only to the Web API', async () => {
    const parent = slack.addMessage('C77', { user: 'U1', text: 'export please' });
    const seen: Array<{ url: string; authorization: string | null }> = [];
    // Real fetch, observed: records where each upload request went and with which Authorization header.
    const observedFetch: typeof fetch = async (input, init) => {
      seen.push({ url: String(input), authorization: new Headers(init?.headers).get('authorization') });
      return fetch(input, init);
    };
    const bytes = new TextEncoder().encode('region,total\nnorth,120\n');
    const { fileId } = await uploadFileToThread(client, { channel: 'C77', threadTs: parent.ts, filename: 'totals.csv', bytes, title: 'Totals' }, observedFetch);

    expect(slack.calls.map((c) => c.method)).toEqual(['files.getUploadURLExternal', 'files.completeUploadExternal']);
    expect(slack.callsTo('files.completeUploadExternal')[0]!.body).toMatchObject({ channel_id: 'C77', thread_ts: parent.ts });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.authorization).toBeNull();
    const [message] = slack.botMessages('C77', parent.ts);
    expect(message!.files!.map((f) => [f.id, f.name, f.title])).toEqual([[fileId, 'totals.csv', 'Totals']]);
    expect(slack.fileContent(fileId)?.toString()).toBe('region,total\nnorth,120\n');
  });

  it('refuses an empty file with a sentence before calling Slack', async () => {
    slack.reset();
    const error = await uploadFileToThread(client, { channel: 'C77', threadTs: '1.2', filename: 'empty.csv', bytes: new Uint8Array() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlackUploadError);
    expect((error as SlackUploadError).message).toBe("empty.csv is empty; Slack does not take empty files.");
    expect(slack.calls).toHaveLength(0);
  });
});
