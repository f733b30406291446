/**
 * Socket Mode (SLACK_APP_TOKEN set): the real SocketModeClient inside Bolt connects over a real WebSocket to a
 * fake Socket Mode server. Slack redelivers an unacknowledged event with a higher retry_attempt, maybe on another
 * connection, and a mention also comes as a `message` event: one answer all the same. Two app instances on one
 * database stand for two replicas, each with its own connection.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startThreadwise, type RunningThreadwise } from '../../src/app/index';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';
import { createLogger } from '../../src/logging/logger';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { mentionEvent, messageEvent, newEventId } from '../fakes/slack-signing';
import { startFakeSocketMode, type FakeSocketMode } from './support/fake-socket-mode';

const CHANNEL = 'C0GENERAL';
const ANA = 'U0ANA';
const APP_TOKEN = 'xapp-1-A0FAKEAPP-1234-fakeapptokenvalue';
const MODEL_KEY = 'sk-test-key-socket-0123456789abcdef';

let slack: FakeSlack;
let model: FakeOpenAI;
let socketMode: FakeSocketMode;
let database: DatabaseHandle;
const apps: RunningThreadwise[] = [];
const logs: string[] = [];

beforeAll(async () => {
  slack = await startFakeSlack({ botName: 'threadwise' });
  model = await startFakeOpenAI({ apiKey: MODEL_KEY });
  slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
  slack.addChannel({ id: CHANNEL, name: 'general' });
  socketMode = await startFakeSocketMode(slack.origin);
  database = await openDatabase({ driver: 'pglite' });
  const loaded = loadConfig({
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: socketMode.apiUrl,
    OPENAI_API_KEY: MODEL_KEY,
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'gpt-4o-mini',
    PORT: '0',
    TIMEZONE: 'UTC',
    USER_RATE_LIMIT_PER_MINUTE: '0',
  });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  const logger = createLogger({ level: 'debug', secrets: [slack.botToken, APP_TOKEN, MODEL_KEY], write: (line) => logs.push(line) });
  // Two replicas on one database, each with its own Socket Mode connection.
  for (const workerId of ['replica-a', 'replica-b']) {
    apps.push(await startThreadwise(loaded.config, { logger, database, workerId, pollMs: 200, leaseMs: 5_000 }));
  }
  await socketMode.waitForConnections(2);
});
afterAll(async () => {
  for (const app of apps) await app.stop(1_000).catch(() => {});
  await database?.close();
  await socketMode?.close();
  await slack?.close();
  await model?.close();
});
beforeEach(() => {
  slack.reset();
  model.reset();
});

const answersIn = (threadTs: string) =>
  slack.botMessages(CHANNEL, threadTs).filter((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === undefined);

describe('Socket Mode', () => {
  it('answers a mention delivered over the WebSocket, in its thread', async () => {
    model.enqueue({ text: 'Hello over Socket Mode.' });
    const message = slack.addMessage(CHANNEL, { user: ANA, text: `<@${slack.botUserId}> are you on a socket?` });
    await socketMode.deliver(0, mentionEvent({ channel: CHANNEL, user: ANA, text: message.text!, ts: message.ts }), { eventId: newEventId(), teamId: slack.teamId });
    await slack.waitFor(() => answersIn(message.ts).some((m) => JSON.stringify(m.blocks ?? []).includes('feedback_buttons')));
    expect(answersIn(message.ts).map((m) => m.text)).toEqual([expect.stringContaining('Hello over Socket Mode.')]);
  });

  it('answers once when Slack redelivers the event on the other connection and also sends it as a message event', async () => {
    model.setDefault({ delayMs: 300, then: { text: 'Only once, whichever socket.' } });
    const message = slack.addMessage(CHANNEL, { user: ANA, text: `<@${slack.botUserId}> how many answers?` });
    const base = { channel: CHANNEL, user: ANA, text: message.text!, ts: message.ts };
    const eventId = newEventId();
    const acks = await Promise.all([
      socketMode.deliver(0, mentionEvent(base), { eventId, teamId: slack.teamId }),
      socketMode.deliver(1, mentionEvent(base), { eventId, teamId: slack.teamId, retryAttempt: 1 }),
      socketMode.deliver(1, messageEvent({ ...base, channel_type: 'channel' }), { eventId: newEventId(), teamId: slack.teamId }),
      socketMode.deliver(0, mentionEvent(base), { eventId, teamId: slack.teamId, retryAttempt: 2 }),
    ]);
    expect(acks).toHaveLength(4); // every delivery acknowledged, so Slack stops redelivering

    await slack.waitFor(() => answersIn(message.ts).length > 0);
    await Promise.all(apps.map((app) => app.idle()));
    expect(answersIn(message.ts).map((m) => m.text)).toEqual([expect.stringContaining('Only once, whichever socket.')]);
    expect(model.requests).toHaveLength(1);
    expect(socketMode.connections.every((connection) => connection.acked.length > 0)).toBe(true);
  });

  it('keeps the app token out of the logs', () => {
    const all = logs.join('\n');
    expect(all).toContain('apps.connections.open');
    for (const secret of [APP_TOKEN, slack.botToken, MODEL_KEY]) expect(all).not.toContain(secret);
  });
});
