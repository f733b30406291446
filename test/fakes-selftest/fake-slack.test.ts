/**
 * The fake Slack driven by the real @slack/web-api WebClient: what the app's Slack code will see in tests.
 */
import { ErrorCode, WebClient, type WebAPIPlatformError } from '@slack/web-api';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';

let slack: FakeSlack;
let client: WebClient;

beforeAll(async () => {
  slack = await startFakeSlack();
  client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, timeout: 5_000 });
});
afterAll(() => slack.close());
afterEach(() => slack.reset());

/** The Slack error code of a failed call (WebClient throws WebAPIPlatformError for ok:false). */
async function errorOf(promise: Promise<unknown>): Promise<string> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as WebAPIPlatformError | undefined;
  if (!error) throw new Error('expected the call to fail');
  return error.data?.error ?? String(error);
}

describe('auth and encoding', () => {
  it('answers auth.test with the bot identity', async () => {
    const auth = await client.auth.test();
    expect(auth).toMatchObject({ ok: true, user_id: slack.botUserId, bot_id: slack.botId, team_id: slack.teamId, user: 'threadwise' });
  });

  it('refuses a wrong token (invalid_auth) and a missing one (not_authed)', async () => {
    const wrong = new WebClient('xoxb-wrong', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    expect(await errorOf(wrong.auth.test())).toBe('invalid_auth');
    const none = new WebClient(undefined, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    expect(await errorOf(none.auth.test())).toBe('not_authed');
  });

  it('records form-encoded calls with nested JSON decoded and the token separated', async () => {
    const parent = slack.addMessage('C1', { user: 'U1', text: 'q' });
    await client.chat.postMessage({ channel: 'C1', thread_ts: parent.ts, text: 'a', blocks: [{ type: 'markdown', text: '**a**' }] });
    const call = slack.callsTo('chat.postMessage')[0]!;
    expect(call.token).toBe(slack.botToken);
    expect(call.body).toEqual({ channel: 'C1', thread_ts: parent.ts, text: 'a', blocks: [{ type: 'markdown', text: '**a**' }] });
  });

  it('accepts JSON bodies too', async () => {
    const response = await fetch(`${slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${slack.botToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: 'C9', text: 'json' }),
    });
    expect(await response.json()).toMatchObject({ ok: true, channel: 'C9' });
    expect(slack.botMessages('C9').map((m) => m.text)).toEqual(['json']);
  });

  it('answers unknown methods with unknown_method', async () => {
    expect(await errorOf(client.apiCall('chat.teleport', {}))).toBe('unknown_method');
  });
});

describe('threads', () => {
  it('pages conversations.replies: parent first, replies in ts order, cursor until has_more is false', async () => {
    const parent = slack.addMessage('C2', { user: 'U1', text: 'parent' });
    const replies = Array.from({ length: 5 }, (_, i) => slack.addMessage('C2', { user: 'U2', thread_ts: parent.ts, text: `r${i}` }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.conversations.replies({ channel: 'C2', ts: parent.ts, limit: 2, cursor });
      pages += 1;
      seen.push(...(page.messages ?? []).map((m) => m.text ?? ''));
      cursor = page.has_more ? page.response_metadata?.next_cursor : undefined;
      if (page.has_more) expect(cursor).toBeTruthy();
    } while (cursor);
    expect(seen).toEqual(['parent', 'r0', 'r1', 'r2', 'r3', 'r4']);
    expect(pages).toBe(3);
    // The parent carries Slack's thread summary; replies carry the parent's author.
    const first = await client.conversations.replies({ channel: 'C2', ts: parent.ts });
    expect(first.messages?.[0]).toMatchObject({ thread_ts: parent.ts, reply_count: 5, latest_reply: replies[4]!.ts });
    expect(first.messages?.[1]).toMatchObject({ parent_user_id: 'U1', thread_ts: parent.ts });
  });

  it('works with WebClient.paginate, honours maxPageSize and can repeat the parent on every page', async () => {
    const parent = slack.addMessage('C3', { user: 'U1', text: 'p' });
    for (let i = 0; i < 4; i += 1) slack.addMessage('C3', { user: 'U1', thread_ts: parent.ts, text: `r${i}` });
    slack.maxPageSize = 2;
    slack.repeatParentOnEveryPage = true;
    try {
      const texts: string[] = [];
      for await (const page of client.paginate('conversations.replies', { channel: 'C3', ts: parent.ts })) {
        texts.push(...((page as { messages?: Array<{ text: string }> }).messages ?? []).map((m) => m.text));
      }
      expect(texts).toEqual(['p', 'r0', 'p', 'r1', 'p', 'r2', 'p', 'r3']);
    } finally {
      slack.maxPageSize = 1000;
      slack.repeatParentOnEveryPage = false;
    }
  });

  it('resolves a reply ts to its thread, returns a lone message alone, and fails on unknown ones', async () => {
    const parent = slack.addMessage('C4', { user: 'U1', text: 'p' });
    const reply = slack.addMessage('C4', { user: 'U1', thread_ts: parent.ts, text: 'r' });
    const lone = slack.addMessage('C4', { user: 'U1', text: 'alone' });
    expect((await client.conversations.replies({ channel: 'C4', ts: reply.ts })).messages?.map((m) => m.text)).toEqual(['p', 'r']);
    expect((await client.conversations.replies({ channel: 'C4', ts: lone.ts })).messages?.map((m) => m.text)).toEqual(['alone']);
    expect(await errorOf(client.conversations.replies({ channel: 'C4', ts: '1600000000.000001' }))).toBe('thread_not_found');
    expect(await errorOf(client.conversations.replies({ channel: 'CNOPE', ts: parent.ts }))).toBe('channel_not_found');
  });

  it('shows bot posts in replies, applies updates, deletes, and keeps ephemerals out', async () => {
    const parent = slack.addMessage('C5', { user: 'U1', text: 'question' });
    const posted = await client.chat.postMessage({ channel: 'C5', thread_ts: parent.ts, text: 'draft' });
    expect(posted).toMatchObject({ ok: true, channel: 'C5', message: { user: slack.botUserId, bot_id: slack.botId, text: 'draft' } });
    await client.chat.update({ channel: 'C5', ts: posted.ts!, text: 'final' });
    await client.chat.postEphemeral({ channel: 'C5', user: 'U1', thread_ts: parent.ts, text: 'only you' });
    const thread = await client.conversations.replies({ channel: 'C5', ts: parent.ts });
    expect(thread.messages?.map((m) => m.text)).toEqual(['question', 'final']);
    expect(thread.messages?.[1]?.edited?.user).toBe(slack.botUserId);
    expect(slack.botMessages('C5', parent.ts).map((m) => m.text)).toEqual(['final']);
    expect(slack.ephemerals).toEqual([expect.objectContaining({ user: 'U1', text: 'only you' })]);

    expect(await errorOf(client.chat.update({ channel: 'C5', ts: parent.ts, text: 'hijack' }))).toBe('cant_update_message');
    await client.chat.delete({ channel: 'C5', ts: posted.ts! });
    expect(slack.botMessages('C5', parent.ts)).toEqual([]);
  });

  it('leaves a tombstone when a parent with replies is deleted', async () => {
    const parent = slack.addMessage('C6', { user: 'U1', text: 'p' });
    slack.addMessage('C6', { user: 'U2', thread_ts: parent.ts, text: 'r' });
    await slack.deleteMessage('C6', parent.ts);
    const thread = await client.conversations.replies({ channel: 'C6', ts: parent.ts });
    expect(thread.messages?.map((m) => (m as { subtype?: string }).subtype ?? m.text)).toEqual(['tombstone', 'r']);
  });

  it('returns message metadata only with include_all_metadata', async () => {
    const parent = slack.addMessage('C15', { user: 'U1', text: 'q' });
    const metadata = { event_type: 'threadwise_run', event_payload: { run: 'r1' } };
    await client.chat.postMessage({ channel: 'C15', thread_ts: parent.ts, text: 'a', metadata });
    expect((await client.conversations.replies({ channel: 'C15', ts: parent.ts })).messages?.[1]?.metadata).toBeUndefined();
    const withIt = await client.conversations.replies({ channel: 'C15', ts: parent.ts, include_all_metadata: true });
    expect(withIt.messages?.[1]?.metadata).toEqual(metadata);
  });

  it('lists channel history newest first, top-level only', async () => {
    const a = slack.addMessage('C7', { user: 'U1', text: 'a' });
    slack.addMessage('C7', { user: 'U1', thread_ts: a.ts, text: 'in thread' });
    slack.addMessage('C7', { user: 'U1', text: 'b' });
    const history = await client.conversations.history({ channel: 'C7' });
    expect(history.messages?.map((m) => m.text)).toEqual(['b', 'a']);
  });

  it('enforces message limits like Slack', async () => {
    const long = 'x'.repeat(7_000);
    const blocks = [
      { type: 'markdown', text: long },
      { type: 'markdown', text: long },
    ];
    expect(await errorOf(client.chat.postMessage({ channel: 'C8', text: 'hi', blocks }))).toBe('invalid_blocks');
    expect(await errorOf(client.chat.postMessage({ channel: 'C8', text: 'y'.repeat(40_001) }))).toBe('msg_too_long');
    expect(await errorOf(client.chat.postMessage({ channel: 'C8', text: '' }))).toBe('no_text');
  });
});

describe('users, bots, channels, reactions, status', () => {
  it('serves users.info, bots.info and conversations.info', async () => {
    slack.addUser({ id: 'U1', name: 'ada', displayName: 'Ada', realName: 'Ada Lovelace' });
    slack.addUser({ id: 'U0OTHERBOT', name: 'jira', isBot: true, botId: 'B0JIRA' });
    slack.addChannel({ id: 'C10', name: 'support', purpose: 'help' });
    slack.addChannel({ id: 'D10', name: 'dm', isIm: true });
    expect((await client.users.info({ user: 'U1' })).user).toMatchObject({
      name: 'ada',
      real_name: 'Ada Lovelace',
      profile: { display_name: 'Ada', real_name: 'Ada Lovelace' },
      is_bot: false,
    });
    expect(await errorOf(client.users.info({ user: 'UNOPE' }))).toBe('user_not_found');
    expect((await client.bots.info({ bot: 'B0JIRA' })).bot).toMatchObject({ name: 'jira', user_id: 'U0OTHERBOT' });
    expect((await client.bots.info({ bot: slack.botId })).bot).toMatchObject({ user_id: slack.botUserId });
    expect((await client.conversations.info({ channel: 'C10' })).channel).toMatchObject({ name: 'support', is_im: false, purpose: { value: 'help' } });
    expect((await client.conversations.info({ channel: 'D10' })).channel).toMatchObject({ is_im: true });
    expect(await errorOf(client.conversations.info({ channel: 'CNOPE' }))).toBe('channel_not_found');
  });

  it('adds and removes reactions with Slack’s errors', async () => {
    const m = slack.addMessage('C11', { user: 'U1', text: 'hi' });
    await client.reactions.add({ channel: 'C11', timestamp: m.ts, name: 'eyes' });
    expect(await errorOf(client.reactions.add({ channel: 'C11', timestamp: m.ts, name: 'eyes' }))).toBe('already_reacted');
    expect((await client.conversations.replies({ channel: 'C11', ts: m.ts })).messages?.[0]?.reactions).toEqual([
      { name: 'eyes', users: [slack.botUserId], count: 1 },
    ]);
    await client.reactions.remove({ channel: 'C11', timestamp: m.ts, name: 'eyes' });
    expect(await errorOf(client.reactions.remove({ channel: 'C11', timestamp: m.ts, name: 'eyes' }))).toBe('no_reaction');
  });

  it('records assistant statuses, and refuses them when told to', async () => {
    await client.assistant.threads.setStatus({ channel_id: 'C12', thread_ts: '1700000000.000100', status: 'reading report.pdf…' });
    await client.assistant.threads.setStatus({ channel_id: 'C12', thread_ts: '1700000000.000100', status: '' });
    expect(slack.statuses('C12', '1700000000.000100')).toEqual(['reading report.pdf…', '']);
    slack.refuse('assistant.threads.setStatus', 'method_not_supported_for_channel_type');
    expect(await errorOf(client.assistant.threads.setStatus({ channel_id: 'C12', thread_ts: '1700000000.000100', status: 'x' }))).toBe(
      'method_not_supported_for_channel_type',
    );
  });
});

describe('streaming', () => {
  it('assembles a message streamed with web-api’s ChatStreamer (chunks), finalised by stopStream', async () => {
    const parent = slack.addMessage('C13', { user: 'U1', text: 'q' });
    const streamer = client.chatStream({ channel: 'C13', thread_ts: parent.ts, recipient_team_id: slack.teamId, recipient_user_id: 'U1', buffer_size: 5 });
    await streamer.append({ markdown_text: 'Hello, ' });
    await streamer.append({ markdown_text: 'world' });
    await streamer.stop({ markdown_text: '!', blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'done' }] }] });
    const [message] = slack.botMessages('C13', parent.ts);
    expect(message?.text).toBe('Hello, world!');
    expect(message?.blocks).toEqual([{ type: 'context', elements: [{ type: 'mrkdwn', text: 'done' }] }]);
    expect(slack.callsTo('chat.startStream')[0]!.body.chunks).toEqual([{ type: 'markdown_text', text: 'Hello, ' }]);
    expect(await errorOf(client.chat.appendStream({ channel: 'C13', ts: streamer.ts!, markdown_text: 'late' }))).toBe(
      'message_not_in_streaming_state',
    );
  });

  it('accepts plain markdown_text calls and can refuse streaming', async () => {
    const parent = slack.addMessage('C14', { user: 'U1', text: 'q' });
    const start = await client.chat.startStream({ channel: 'C14', thread_ts: parent.ts, markdown_text: 'a' });
    await client.chat.appendStream({ channel: 'C14', ts: start.ts!, markdown_text: 'b' });
    await client.chat.stopStream({ channel: 'C14', ts: start.ts! });
    expect(slack.botMessages('C14', parent.ts).map((m) => m.text)).toEqual(['ab']);
    slack.refuse('chat.startStream', 'not_allowed');
    expect(await errorOf(client.chat.startStream({ channel: 'C14', thread_ts: parent.ts, markdown_text: 'x' }))).toBe('not_allowed');
  });
});

describe('failures', () => {
  it('answers 429 with Retry-After; the WebClient waits and retries', async () => {
    const retrying = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 2, minTimeout: 0, maxTimeout: 0 } });
    slack.failNext('auth.test', { status: 429, retryAfter: 0 });
    await expect(retrying.auth.test()).resolves.toMatchObject({ ok: true });
    expect(slack.callsTo('auth.test').map((c) => c.outcome)).toEqual(['http_429', 'ok']);
  });

  it('surfaces the Retry-After value to a client that rejects rate-limited calls', async () => {
    const strict = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } });
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 7 });
    const error = await strict.chat.postMessage({ channel: 'C1', text: 'x' }).catch((e: { code: string; retryAfter: number }) => e);
    expect(error).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 7 });
  });

  it('fails with HTTP 5xx and with ok:false codes, the given number of times', async () => {
    slack.failNext('users.info', { status: 503 });
    const error = await client.users.info({ user: slack.botUserId }).catch((e: { code: string; statusCode: number }) => e);
    expect(error).toMatchObject({ code: ErrorCode.HTTPError, statusCode: 503 });
    slack.failNext('users.info', { error: 'fatal_error' }, 2);
    expect(await errorOf(client.users.info({ user: slack.botUserId }))).toBe('fatal_error');
    expect(await errorOf(client.users.info({ user: slack.botUserId }))).toBe('fatal_error');
    await expect(client.users.info({ user: slack.botUserId })).resolves.toMatchObject({ ok: true });
  });

  it('waitFor resolves on a matching call and rejects listing the calls seen', async () => {
    const waiting = slack.waitFor((s) => s.callsTo('auth.test').length === 1, 2_000);
    await client.auth.test();
    await waiting;
    await expect(slack.waitFor((s) => s.callsTo('chat.postMessage').length > 0, 100)).rejects.toThrow(/auth\.test/);
  });
});

describe('files', () => {
  const download = (url: string, token?: string) =>
    fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('serves files.info and downloads that demand the bot token', async () => {
    const file = slack.addFile({ name: 'notes.txt', mimetype: 'text/plain', content: 'hello file' });
    expect(file).toMatchObject({ name: 'notes.txt', filetype: 'text', size: 10, mode: 'hosted' });
    expect((await client.files.info({ file: file.id })).file).toMatchObject({ id: file.id, url_private_download: file.url_private_download });

    const ok = await download(file.url_private_download!, slack.botToken);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('text/plain');
    expect(await ok.text()).toBe('hello file');

    // Without the token Slack redirects to its sign-in page; fetch follows and gets HTML.
    const anonymous = await download(file.url_private!);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-type')).toMatch(/^text\/html/);
    const manual = await fetch(file.url_private!, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(slack.downloads.map((d) => [d.authorized, d.status])).toEqual([
      [true, 200],
      [false, 302],
      [false, 302],
    ]);
  });

  it('accepts files.uploadV2 into a thread: the file is stored and shared by a bot message', async () => {
    const parent = slack.addMessage('C20', { user: 'U1', text: 'q' });
    const result = await client.filesUploadV2({
      channel_id: 'C20',
      thread_ts: parent.ts,
      filename: 'answer.md',
      title: 'Full answer',
      content: '# long answer',
      initial_comment: 'The full answer is attached.',
    });
    expect(result.ok).toBe(true);
    const [message] = slack.botMessages('C20', parent.ts);
    expect(message).toMatchObject({ text: 'The full answer is attached.', files: [{ name: 'answer.md', title: 'Full answer', filetype: 'markdown' }] });
    expect(slack.fileContent(message!.files![0]!.id)?.toString()).toBe('# long answer');
    expect(slack.calls.map((c) => c.method)).toEqual(['files.getUploadURLExternal', 'files.completeUploadExternal']);
  });

  it('answers an HTML sign-in page for files the bot cannot access, even with the token', async () => {
    const file = slack.addFile({ name: 'secret.pdf', mimetype: 'application/pdf', content: '%PDF-1.4', access: 'html_login' });
    const response = await download(file.url_private_download!, slack.botToken);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('models deleted, tombstoned and external files', async () => {
    const deleted = slack.addFile({ name: 'gone.pdf', mimetype: 'application/pdf', content: 'x', access: 'deleted' });
    expect(await errorOf(client.files.info({ file: deleted.id }))).toBe('file_deleted');
    expect((await download(deleted.url_private_download!, slack.botToken)).status).toBe(404);

    const tombstone = slack.addFile({ name: 't.pdf', mimetype: 'application/pdf', content: 'x', access: 'tombstone' });
    expect(tombstone).toEqual({ id: tombstone.id, mode: 'tombstone' });
    expect(await errorOf(client.files.info({ file: tombstone.id }))).toBe('file_not_found');

    const external = slack.addFile({ name: 'Plan', mimetype: 'application/vnd.google-apps.document', content: '', access: 'external' });
    expect(external).toMatchObject({ is_external: true, external_type: 'gdrive', mode: 'external' });
    expect(external.url_private_download).toBeUndefined();
  });

  it('claims a declared size and streams from a factory; serves thumbnails with auth; knows image sizes', async () => {
    let served = 0;
    const big = slack.addFile({
      name: 'huge.csv',
      mimetype: 'text/csv',
      declaredSize: 1_000_000_000,
      content: () =>
        new Readable({
          read() {
            served += 1;
            this.push(Buffer.alloc(64 * 1024, 0x61));
          },
        }),
    });
    expect(big.size).toBe(1_000_000_000);
    const response = await download(big.url_private_download!, slack.botToken);
    const reader = response.body!.getReader();
    let received = 0;
    while (received < 1_000_000) received += (await reader.read()).value?.length ?? 0;
    await reader.cancel();
    expect(received).toBeGreaterThanOrEqual(1_000_000);
    expect(served).toBeGreaterThan(0);

    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000280000001e00806000000', 'hex');
    const image = slack.addFile({ name: 'shot.png', mimetype: 'image/png', content: png, thumbs: { thumb_1024: png } });
    expect(image).toMatchObject({ filetype: 'png', original_w: 640, original_h: 480 });
    expect((await download(image.thumb_1024!, slack.botToken)).status).toBe(200);
    expect((await fetch(image.thumb_1024!, { redirect: 'manual' })).status).toBe(302);
  });
});
