/**
 * Requests signed the way Slack signs them, posted to the app's real receiver: `v0=` + HMAC-SHA256 of
 * "v0:<timestamp>:<raw body>" with the signing secret. Events go as JSON, slash commands and interactions as
 * form bodies — the receiver parses them by content type, as Bolt does, so the encoding here must match Slack's exactly.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { SlackFileObject } from './slack-types';

export function signSlackRequest(signingSecret: string, rawBody: string, timestampSeconds?: number): Record<string, string> {
  const timestamp = String(timestampSeconds ?? Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex');
  return { 'x-slack-signature': `v0=${signature}`, 'x-slack-request-timestamp': timestamp };
}

export interface SignedPostOptions {
  /** Request timestamp in seconds (default now); Bolt rejects anything older than 5 minutes. */
  timestamp?: number;
  /** Sign with a wrong secret, to test rejection. */
  badSignature?: boolean;
}

async function postSigned(
  url: string,
  signingSecret: string,
  body: string,
  contentType: string,
  options: SignedPostOptions & { headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string }> {
  const secret = options.badSignature ? `${signingSecret}-wrong` : signingSecret;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': contentType,
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      ...signSlackRequest(secret, body, options.timestamp),
      ...options.headers,
    },
    body,
  });
  return { status: response.status, body: await response.text() };
}

export interface PostEventOptions extends SignedPostOptions {
  eventId?: string;
  /** Sets X-Slack-Retry-Num: Slack's redelivery of an event it thinks was not acknowledged. */
  retryNum?: number;
  /** X-Slack-Retry-Reason, e.g. 'http_timeout' (default when retryNum is set). */
  retryReason?: string;
  teamId?: string;
  /** Adds `authorizations` naming this bot user, as Slack does for the installing bot. */
  botUserId?: string;
}

let eventCounter = 0;

/** A fresh Slack-looking event id ("Ev0…"). Reuse one with `eventId` to simulate a duplicate delivery. */
export function newEventId(): string {
  eventCounter += 1;
  return `Ev0FAKE${String(eventCounter).padStart(4, '0')}${randomBytes(3).toString('hex').toUpperCase()}`;
}

/**
 * The JSON body Slack posts for an event: the `event_callback` envelope around `event`. Sign its
 * `JSON.stringify` with `signSlackRequest` to send it with a client of your own (the load bench does).
 */
export function slackEventEnvelope(event: object, options: Pick<PostEventOptions, 'eventId' | 'teamId' | 'botUserId'> = {}) {
  const teamId = options.teamId ?? 'T0TEAM';
  return {
    token: 'fake-verification-token',
    team_id: teamId,
    context_team_id: teamId,
    context_enterprise_id: null,
    api_app_id: 'A0FAKEAPP',
    event,
    type: 'event_callback',
    event_id: options.eventId ?? newEventId(),
    event_time: Math.floor(Date.now() / 1000),
    ...(options.botUserId
      ? {
          authorizations: [
            { enterprise_id: null, team_id: teamId, user_id: options.botUserId, is_bot: true, is_enterprise_install: false },
          ],
        }
      : {}),
    is_ext_shared_channel: false,
  };
}

export async function postSlackEvent(
  appUrl: string,
  signingSecret: string,
  event: object,
  options: PostEventOptions = {},
): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(slackEventEnvelope(event, options));
  const headers: Record<string, string> = {};
  if (options.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(options.retryNum);
    headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
  } else if (options.retryReason !== undefined) headers['x-slack-retry-reason'] = options.retryReason;
  return postSigned(appUrl, signingSecret, body, 'application/json', { ...options, headers });
}

export interface SlashCommand {
  command: string;
  text: string;
  user_id: string;
  channel_id: string;
  team_id?: string;
  user_name?: string;
  channel_name?: string;
  trigger_id?: string;
  response_url?: string;
}

export async function postSlashCommand(
  appUrl: string,
  signingSecret: string,
  command: SlashCommand,
  options: SignedPostOptions = {},
): Promise<{ status: number; body: string }> {
  const teamId = command.team_id ?? 'T0TEAM';
  const form = new URLSearchParams({
    token: 'fake-verification-token',
    team_id: teamId,
    team_domain: 'fake-team',
    channel_id: command.channel_id,
    channel_name: command.channel_name ?? 'general',
    user_id: command.user_id,
    user_name: command.user_name ?? command.user_id.toLowerCase(),
    command: command.command,
    text: command.text,
    api_app_id: 'A0FAKEAPP',
    is_enterprise_install: 'false',
    response_url: command.response_url ?? `https://hooks.slack.com/commands/${teamId}/1/fake`,
    trigger_id: command.trigger_id ?? `${Date.now()}.1.fake`,
  });
  return postSigned(appUrl, signingSecret, form.toString(), 'application/x-www-form-urlencoded', options);
}

export async function postInteraction(
  appUrl: string,
  signingSecret: string,
  payload: object,
  options: SignedPostOptions = {},
): Promise<{ status: number; body: string }> {
  const form = new URLSearchParams({ payload: JSON.stringify(payload) });
  return postSigned(appUrl, signingSecret, form.toString(), 'application/x-www-form-urlencoded', options);
}

// ---- event builders: the fields Slack sends, so tests read as "who said what where" ----

export interface MessageEventInput {
  channel: string;
  user: string;
  text: string;
  ts: string;
  thread_ts?: string;
  files?: SlackFileObject[];
  team?: string;
  /** Overrides the inferred subtype (file_share when files are attached). */
  subtype?: string;
  bot_id?: string;
}

function rich(text: string) {
  return [{ type: 'rich_text', block_id: 'b0', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] }];
}

function common(input: MessageEventInput) {
  return {
    user: input.user,
    text: input.text,
    ts: input.ts,
    event_ts: input.ts,
    channel: input.channel,
    team: input.team ?? 'T0TEAM',
    client_msg_id: `00000000-0000-4000-8000-${input.ts.replace('.', '').padStart(12, '0').slice(-12)}`,
    blocks: rich(input.text),
    ...(input.thread_ts ? { thread_ts: input.thread_ts } : {}),
    ...(input.files ? { files: input.files, upload: false, display_as_bot: false } : {}),
    ...(input.bot_id ? { bot_id: input.bot_id } : {}),
  };
}

/** `app_mention`: the text carries the bot's mention, e.g. "<@U0BOT> summarise this". */
export function mentionEvent(input: MessageEventInput) {
  return { type: 'app_mention', ...common(input) };
}

/** A channel `message` event (channel_type 'channel'); file_share subtype when files are attached. */
export function messageEvent(input: MessageEventInput & { channel_type?: 'channel' | 'group' | 'im' | 'mpim' }) {
  const subtype = input.subtype ?? (input.files ? 'file_share' : undefined);
  return { type: 'message', ...(subtype ? { subtype } : {}), ...common(input), channel_type: input.channel_type ?? 'channel' };
}

/** A direct message to the bot (channel_type 'im', channel id usually "D…"). */
export function dmEvent(input: MessageEventInput) {
  return messageEvent({ ...input, channel_type: 'im' });
}

/** `message_changed`: someone edited a message. */
export function messageChangedEvent(input: MessageEventInput & { editedTs: string; channel_type?: string }) {
  const { editedTs, channel_type, ...message } = input;
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: input.channel,
    channel_type: channel_type ?? 'channel',
    ts: editedTs,
    event_ts: editedTs,
    message: { type: 'message', ...common(message), edited: { user: input.user, ts: editedTs } },
  };
}

export interface ButtonClickInput {
  /** The fake workspace (its team, app and bot ids). */
  slack: { teamId: string; appId: string; botUserId: string; botId: string; origin: string };
  user: string;
  channel: string;
  /** The bot's message the button is on. */
  message: { ts: string; thread_ts?: string };
  action: { action_id: string; value?: string };
}

/** What Slack posts (as block_actions) when someone clicks a button in one of the bot's messages. */
export function buttonClick(input: ButtonClickInput) {
  const { slack, user, channel, message } = input;
  return {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), team_id: slack.teamId },
    team: { id: slack.teamId, domain: 'fake' },
    api_app_id: slack.appId,
    token: 'fake-verification-token',
    trigger_id: '1.2.3',
    container: { type: 'message', message_ts: message.ts, channel_id: channel, is_ephemeral: false, thread_ts: message.thread_ts },
    channel: { id: channel, name: 'general' },
    message: { type: 'message', ts: message.ts, thread_ts: message.thread_ts, user: slack.botUserId, bot_id: slack.botId, text: '' },
    response_url: `${slack.origin}/response-url`,
    actions: [{ type: 'button', action_ts: '1700000999.000100', ...input.action }],
  };
}

// ---- surfaces beyond messages: forms, shortcuts, reactions, agent view, App Home ----

interface Workspace {
  teamId: string;
  appId: string;
}

/** What Slack posts when someone submits a modal: `values` as block_id → action_id → element state. */
export function viewSubmission(input: { slack: Workspace; user: string; callbackId: string; privateMetadata: string; values: Record<string, Record<string, unknown>> }) {
  return {
    type: 'view_submission',
    team: { id: input.slack.teamId, domain: 'fake' },
    user: { id: input.user, username: input.user.toLowerCase(), team_id: input.slack.teamId },
    api_app_id: input.slack.appId,
    token: 'fake-verification-token',
    trigger_id: '2.3.4',
    view: {
      id: 'V0FORM',
      team_id: input.slack.teamId,
      type: 'modal',
      callback_id: input.callbackId,
      private_metadata: input.privateMetadata,
      state: { values: input.values },
      hash: '1.abc',
      title: { type: 'plain_text', text: 'Form' },
      blocks: [],
    },
    response_urls: [],
  };
}

/** A message shortcut ("⋯ → Ask threadwise") on a message. */
export function messageShortcut(input: { slack: Workspace; user: string; callbackId: string; channel: string; message: { ts: string; thread_ts?: string; user?: string; text?: string } }) {
  return {
    type: 'message_action',
    callback_id: input.callbackId,
    trigger_id: '3.4.5',
    action_ts: '1700000999.000300',
    team: { id: input.slack.teamId, domain: 'fake' },
    user: { id: input.user, name: input.user.toLowerCase(), team_id: input.slack.teamId },
    channel: { id: input.channel, name: 'general' },
    message: { type: 'message', text: '', ...input.message },
    response_url: 'https://hooks.slack.com/app/fake',
    token: 'fake-verification-token',
    api_app_id: input.slack.appId,
  };
}

/** A global shortcut (from the composer's shortcuts menu or search). */
export function globalShortcut(input: { slack: Workspace; user: string; callbackId: string }) {
  return {
    type: 'shortcut',
    callback_id: input.callbackId,
    trigger_id: '4.5.6',
    action_ts: '1700000999.000400',
    team: { id: input.slack.teamId, domain: 'fake' },
    user: { id: input.user, username: input.user.toLowerCase(), team_id: input.slack.teamId },
    token: 'fake-verification-token',
    api_app_id: input.slack.appId,
  };
}

export function reactionAddedEvent(input: { user: string; reaction: string; channel: string; ts: string; itemUser?: string }) {
  return { type: 'reaction_added', user: input.user, reaction: input.reaction, item: { type: 'message', channel: input.channel, ts: input.ts }, item_user: input.itemUser, event_ts: `${Date.now() / 1000}` };
}

export function assistantThreadStartedEvent(input: { user: string; dmChannel: string; threadTs: string; contextChannel?: string; teamId?: string }) {
  return {
    type: 'assistant_thread_started',
    assistant_thread: {
      user_id: input.user,
      context: input.contextChannel ? { channel_id: input.contextChannel, team_id: input.teamId ?? 'T0TEAM', enterprise_id: null } : {},
      channel_id: input.dmChannel,
      thread_ts: input.threadTs,
    },
    event_ts: input.threadTs,
  };
}

export function appHomeOpenedEvent(input: { user: string; tab?: 'home' | 'messages' }) {
  return { type: 'app_home_opened', user: input.user, channel: `D${input.user.slice(1)}`, tab: input.tab ?? 'home', event_ts: `${Date.now() / 1000}` };
}
