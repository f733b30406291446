/**
 * The signing helpers against Bolt itself: its verifier, and a real Bolt App (HTTP receiver) whose Web API
 * client talks to the fake Slack. If these pass, app tests can trust that an event "arrived from Slack".
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { App, LogLevel, verifySlackRequest } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import {
  dmEvent,
  mentionEvent,
  messageEvent,
  postInteraction,
  postSlackEvent,
  postSlashCommand,
  signSlackRequest,
} from '../fakes/slack-signing';

const SECRET = 'fake-signing-secret';

describe('signSlackRequest', () => {
  it('produces headers Bolt verifies', () => {
    const body = JSON.stringify({ type: 'event_callback', event: { type: 'app_mention' } });
    const headers = signSlackRequest(SECRET, body);
    expect(headers['x-slack-signature']).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(() =>
      verifySlackRequest({
        signingSecret: SECRET,
        body,
        headers: {
          'x-slack-signature': headers['x-slack-signature']!,
          'x-slack-request-timestamp': Number(headers['x-slack-request-timestamp']),
        },
      }),
    ).not.toThrow();
  });

  it('is rejected by Bolt when the body, secret or timestamp is off', () => {
    const body = '{"a":1}';
    const verify = (headers: Record<string, string>, text = body, secret = SECRET) =>
      verifySlackRequest({
        signingSecret: secret,
        body: text,
        headers: {
          'x-slack-signature': headers['x-slack-signature']!,
          'x-slack-request-timestamp': Number(headers['x-slack-request-timestamp']),
        },
      });
    expect(() => verify(signSlackRequest(SECRET, body), '{"a":2}')).toThrow();
    expect(() => verify(signSlackRequest('other', body))).toThrow();
    expect(() => verify(signSlackRequest(SECRET, body, Math.floor(Date.now() / 1000) - 600))).toThrow();
  });
});

describe('posting to a real Bolt app', () => {
  let slack: FakeSlack;
  let server: Server;
  let appUrl: string;
  let app: App;
  const seen: Array<{ kind: string; payload: any; retryNum?: number; retryReason?: string }> = [];

  beforeAll(async () => {
    slack = await startFakeSlack();
    app = new App({
      token: slack.botToken,
      signingSecret: SECRET,
      clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } },
      logLevel: LogLevel.ERROR,
      deferInitialization: true,
    });
    await app.init();
    app.event('app_mention', async ({ event, context, client }) => {
      seen.push({ kind: 'app_mention', payload: event, retryNum: context.retryNum, retryReason: context.retryReason });
      await client.chat.postMessage({ channel: event.channel, thread_ts: event.ts, text: `heard: ${event.text}` });
    });
    app.message(async ({ message }) => {
      seen.push({ kind: 'message', payload: message });
    });
    app.command('/ask', async ({ command, ack }) => {
      await ack();
      seen.push({ kind: 'command', payload: command });
    });
    app.action('feedback', async ({ ack, body }) => {
      await ack();
      seen.push({ kind: 'action', payload: body });
    });
    server = (await app.start(0)) as Server;
    appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });

  afterAll(async () => {
    await app.stop();
    await slack.close();
  });

  it('delivers a signed app_mention, and the bot answers through the fake Web API', async () => {
    const parent = slack.addMessage('C1', { user: 'U1', text: '<@U0BOT> hello' });
    const response = await postSlackEvent(appUrl, SECRET, mentionEvent({ channel: 'C1', user: 'U1', text: parent.text, ts: parent.ts }));
    expect(response.status).toBe(200);
    await slack.waitFor((s) => s.botMessages('C1', parent.ts).length === 1);
    expect(slack.botMessages('C1', parent.ts)[0]!.text).toBe('heard: <@U0BOT> hello');
    // Bolt asked auth.test for its own identity at init, against the fake.
    expect(slack.callsTo('auth.test').length).toBeGreaterThan(0);
  });

  it('passes retry headers through to Bolt’s context', async () => {
    await postSlackEvent(appUrl, SECRET, mentionEvent({ channel: 'C1', user: 'U1', text: 'again', ts: '1700000100.000100' }), {
      retryNum: 1,
      retryReason: 'http_timeout',
    });
    const event = seen.find((s) => s.kind === 'app_mention' && s.payload.text === 'again');
    expect(event).toMatchObject({ retryNum: 1, retryReason: 'http_timeout' });
  });

  it('gets a 401 for a bad signature and a stale timestamp', async () => {
    const event = mentionEvent({ channel: 'C1', user: 'U1', text: 'x', ts: '1700000200.000100' });
    expect((await postSlackEvent(appUrl, SECRET, event, { badSignature: true })).status).toBe(401);
    expect((await postSlackEvent(appUrl, SECRET, event, { timestamp: Math.floor(Date.now() / 1000) - 3600 })).status).toBe(401);
  });

  it('delivers message and DM events with the right channel_type and file_share subtype', async () => {
    const file = slack.addFile({ name: 'a.txt', mimetype: 'text/plain', content: 'hi' });
    await postSlackEvent(appUrl, SECRET, messageEvent({ channel: 'C2', user: 'U1', text: 'files', ts: '1700000300.000100', files: [file] }));
    await postSlackEvent(appUrl, SECRET, dmEvent({ channel: 'D1', user: 'U1', text: 'dm', ts: '1700000301.000100' }));
    const messages = seen.filter((s) => s.kind === 'message').map((s) => s.payload);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subtype: 'file_share', channel_type: 'channel', files: [expect.objectContaining({ id: file.id })] }),
        expect.objectContaining({ text: 'dm', channel_type: 'im' }),
      ]),
    );
  });

  it('delivers slash commands and interactions as form posts', async () => {
    const command = await postSlashCommand(appUrl, SECRET, { command: '/ask', text: 'what is up', user_id: 'U1', channel_id: 'C1' });
    expect(command.status).toBe(200);
    expect(seen.find((s) => s.kind === 'command')?.payload).toMatchObject({ command: '/ask', text: 'what is up', channel_id: 'C1' });

    const interaction = await postInteraction(appUrl, SECRET, {
      type: 'block_actions',
      user: { id: 'U1' },
      team: { id: 'T0TEAM' },
      api_app_id: 'A0FAKEAPP',
      trigger_id: '1.2.3',
      channel: { id: 'C1' },
      container: { type: 'message', channel_id: 'C1', message_ts: '1700000000.000100' },
      actions: [{ action_id: 'feedback', block_id: 'b', type: 'button', value: 'good', action_ts: '1700000400.000100' }],
    });
    expect(interaction.status).toBe(200);
    expect(seen.find((s) => s.kind === 'action')?.payload.actions[0].value).toBe('good');
  });
});
