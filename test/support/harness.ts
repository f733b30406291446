/**
 * The real app, in-process, against the fakes over real HTTP: the app's receiver gets signed events, the Web API
 * client talks to the fake Slack, the openai SDK to the fake model. One harness per test file; `reset()` between tests.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { loadConfig } from '../../src/config';
import { startThreadwise, type RunningThreadwise, type StartOptions } from '../../src/app/index';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';
import { createLogger, type Logger } from '../../src/logging/logger';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { startResponseUrlRecorder } from './response-url-recorder';
import { countTokens } from '../../src/context';
import { mentionEvent, messageEvent, postSlackEvent, postSlashCommand, postInteraction, newEventId } from '../fakes/slack-signing';

export const SIGNING_SECRET = 'test-signing-secret-8f2a';

export interface Harness {
  slack: FakeSlack;
  model: FakeOpenAI;
  app: RunningThreadwise;
  database: DatabaseHandle;
  eventsUrl: string;
  /** Every log line the app wrote (JSON), for asserting on what operators see and what they must never see. */
  logs: string[];
  logger: Logger;
  /** A user @mentions the bot: seeds the message in Slack and delivers the signed event. Returns the message ts. */
  mention(input: { channel?: string; user?: string; text: string; threadTs?: string; files?: unknown[]; eventId?: string; retryNum?: number }): Promise<{ ts: string; eventId: string; status: number }>;
  /** A plain message (no mention), e.g. a follow-up in a thread. */
  say(input: { channel?: string; user?: string; text: string; threadTs?: string; files?: unknown[]; channelType?: 'channel' | 'im' }): Promise<{ ts: string; status: number }>;
  ask(input: { channel?: string; user?: string; text: string }): Promise<{ status: number; body: string }>;
  interact(payload: object): Promise<{ status: number; body: string }>;
  /** What slash commands answered through response_url (ephemeral notes). */
  responses: Array<Record<string, unknown>>;
  /** Waits until `count` bot answers (not status notes) exist in the thread. */
  answers(channel: string, threadTs: string, count?: number, timeoutMs?: number): Promise<string[]>;
  restart(overrides?: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

export const CHANNEL = 'C0GENERAL';
export const ANA = 'U0ANA';
export const BEN = 'U0BEN';

export async function startHarness(options: { env?: Record<string, string>; start?: StartOptions } = {}): Promise<Harness> {
  const slack = await startFakeSlack({ botName: 'threadwise' });
  const model = await startFakeOpenAI({ apiKey: 'sk-test-key-0123456789abcdef' });
  slack.addUser({ id: ANA, name: 'ana', displayName: 'Ana' });
  slack.addUser({ id: BEN, name: 'ben', displayName: 'Ben' });
  slack.addChannel({ id: CHANNEL, name: 'general', purpose: 'Company-wide chatter' });
  const database = await openDatabase({ driver: 'pglite' });
  const responseUrl = await startResponseUrlRecorder();
  const logs: string[] = [];

  const logger = createLogger({
    level: 'debug',
    secrets: [slack.botToken, SIGNING_SECRET, 'sk-test-key-0123456789abcdef'],
    write: (line) => logs.push(line),
  });
  const env = (overrides: Record<string, string> = {}) => ({
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    OPENAI_API_KEY: 'sk-test-key-0123456789abcdef',
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'gpt-4o-mini',
    PORT: '0',
    SKILLS_DIR: 'skills',
    TIMEZONE: 'Europe/Berlin',
    MODEL_TIMEOUT_SECONDS: '10',
    USER_RATE_LIMIT_PER_MINUTE: '0',
    ...options.env,
    ...overrides,
  });
  // The bot loads the token tables with its first run (half a second of CPU, seconds on a busy machine; 50 MB it
  // need not hold while idle). These tests' 3 s leases are shorter than that stall can be: load them up front.
  countTokens('threadwise', 'gpt-4o-mini');
  const launch = async (overrides?: Record<string, string>) => {
    const loaded = loadConfig(env(overrides));
    if (!loaded.ok) throw new Error(`test config invalid: ${loaded.problems.join('; ')}`);
    return startThreadwise(loaded.config, { logger, database, pollMs: 200, leaseMs: 3_000, ...options.start });
  };
  let app = await launch();
  const eventsUrl = () => `http://127.0.0.1:${app.port}/slack/events`;
  // Slack sends what happens in the workspace (file_deleted, message_deleted) to the app, as a subscription does.
  slack.subscribe(eventsUrl, SIGNING_SECRET);

  const harness: Harness = {
    slack,
    model,
    get app() {
      return app;
    },
    database,
    get eventsUrl() {
      return eventsUrl();
    },
    logs,
    logger,
    responses: responseUrl.responses,
    async mention({ channel = CHANNEL, user = ANA, text, threadTs, files, eventId = newEventId(), retryNum }) {
      const stored = slack.addMessage(channel, { user, text, thread_ts: threadTs, files: files as never });
      const event = mentionEvent({ channel, user, text, ts: stored.ts, thread_ts: threadTs, files: files as never });
      const response = await postSlackEvent(eventsUrl(), SIGNING_SECRET, event, { eventId, retryNum, teamId: slack.teamId });
      return { ts: stored.ts, eventId, status: response.status };
    },
    async say({ channel = CHANNEL, user = ANA, text, threadTs, files, channelType = 'channel' }) {
      const stored = slack.addMessage(channel, { user, text, thread_ts: threadTs, files: files as never });
      const event = messageEvent({ channel, user, text, ts: stored.ts, thread_ts: threadTs, files: files as never, channel_type: channelType });
      const response = await postSlackEvent(eventsUrl(), SIGNING_SECRET, event, { teamId: slack.teamId });
      return { ts: stored.ts, status: response.status };
    },
    ask: ({ channel = CHANNEL, user = ANA, text }) =>
      postSlashCommand(eventsUrl(), SIGNING_SECRET, {
        command: '/ask',
        text,
        user_id: user,
        channel_id: channel,
        team_id: slack.teamId,
        response_url: responseUrl.url,
      }),
    interact: (payload) => postInteraction(eventsUrl(), SIGNING_SECRET, payload),
    async answers(channel, threadTs, count = 1, timeoutMs = 15_000) {
      const answered = () => slack.botMessages(channel, threadTs).filter((m) => isAnswer(m));
      await slack.waitFor(() => answered().length >= count, timeoutMs);
      // Let streaming finish: the last answer carries the feedback buttons (or is a failure sentence).
      await slack.waitFor(() => answered().slice(-1)[0] !== undefined && isComplete(answered().slice(-1)[0]!), timeoutMs);
      return answered().map((m) => textOf(m));
    },
    async restart(overrides) {
      await app.stop(1_000);
      app = await launch(overrides);
    },
    async close() {
      await app.stop(1_000).catch(() => {});
      await database.close();
      await slack.close();
      await model.close();
      await responseUrl.close();
    },
  };
  return harness;
}

type Posted = { text?: string; blocks?: unknown[]; metadata?: unknown };

function isAnswer(message: Posted): boolean {
  const type = (message.metadata as { event_type?: string } | undefined)?.event_type;
  return type !== 'threadwise_status' && type !== 'threadwise_question';
}

function isComplete(message: Posted): boolean {
  const blocks = JSON.stringify(message.blocks ?? []);
  return blocks.includes('feedback_buttons') || /^(Sorry|_Stopped)/.test(message.text ?? '') || /Sorry/.test(blocks);
}

/** The answer's words as a person reads them: the markdown block's text, else the message text. */
export function textOf(message: Posted): string {
  const markdown = (message.blocks ?? []).filter((b): b is { type: string; text: string } => (b as { type?: string }).type === 'markdown');
  return markdown.length ? markdown.map((b) => b.text).join('\n') : (message.text ?? '');
}

;

/**
 * One harness for a test file: started before the first test, closed after the last, fakes reset between tests.
 * Returns a stand-in that forwards to the running harness, so tests read `h.mention(…)`.
 */
export function useHarness(options: Parameters<typeof startHarness>[0] = {}): Harness {
  let current: Harness | undefined;
  beforeAll(async () => {
    current = await startHarness(options);
  });
  afterAll(() => current?.close());
  beforeEach(() => {
    current!.slack.reset();
    current!.model.reset();
  });
  return new Proxy({} as Harness, {
    get: (_target, key) => {
      if (!current) throw new Error('the harness is used before beforeAll started it');
      const value = Reflect.get(current, key);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}
