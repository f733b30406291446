import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { downloadSlackFile } from '../../../src/slack/files/download';
import { FileDownloadError } from '../../../src/slack/files/file-download-error';
import { FileReadError } from '../../../src/core/thread-file';
import { startFakeSlack, type FakeSlack } from '../../fakes/fake-slack';
import { listen, sendText, type Listening } from '../../fakes/http';

const MB = 1024 * 1024;
const fastRetry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5_000 };

describe('downloading a Slack file', () => {
  let slack: FakeSlack;
  let elsewhere: Listening;
  const elsewhereRequests: Array<{ url: string; authorization?: string }> = [];

  beforeAll(async () => {
    slack = await startFakeSlack();
    elsewhere = await listen((req, res) => {
      elsewhereRequests.push({ url: req.url ?? '', authorization: req.headers.authorization });
      sendText(res, 200, 'not for you');
    }, 'elsewhere');
  });
  afterAll(async () => {
    await slack?.close();
    await elsewhere?.close();
  });
  beforeEach(() => {
    slack.reset();
    elsewhereRequests.length = 0;
  });

  const request = (url: string, name: string, extra: Partial<Parameters<typeof downloadSlackFile>[0]> = {}) =>
    downloadSlackFile({ url, file: { name }, botToken: slack.botToken, apiUrl: slack.apiUrl, maxBytes: 5 * MB, retry: fastRetry, ...extra });

  it('downloads with the bot token and hashes the bytes', async () => {
    const file = slack.addFile({ name: 'notes.txt', mimetype: 'text/plain', content: 'hello' });
    const { bytes, contentHash } = await request(file.url_private_download!, 'notes.txt');
    expect(bytes.toString()).toBe('hello');
    expect(contentHash).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    expect(slack.downloads).toEqual([expect.objectContaining({ authorized: true, status: 200 })]);
  });

  it('refuses a file URL on another host without sending it anything', async () => {
    const error = await request(`${elsewhere.origin}/files/report.pdf`, 'report.pdf').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileDownloadError);
    expect((error as Error).message).toContain('only send my token to Slack');
    expect(elsewhereRequests).toEqual([]);
  });

  it('does not follow a redirect off Slack with the token', async () => {
    const redirecting = await listen((_req, res) => {
      res.writeHead(302, { location: `${elsewhere.origin}/stolen` });
      res.end();
    }, 'redirecting-slack');
    try {
      const error = await downloadSlackFile({
        url: `${redirecting.origin}/files/F1/download/a.pdf`,
        file: { name: 'a.pdf' },
        botToken: 'xoxb-secret',
        apiUrl: `${redirecting.origin}/api/`,
        maxBytes: MB,
      }).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/Slack redirected it to 127\.0\.0\.1:\d+, which is not a Slack file host/);
      expect(elsewhereRequests).toEqual([]);
    } finally {
      await redirecting.close();
    }
  });

  it('refuses a declared 1 GB file before downloading any of it', async () => {
    const file = slack.addFile({ name: 'dump.sql', mimetype: 'text/plain', content: 'x', declaredSize: 1024 * MB });
    const error = await request(file.url_private_download!, 'dump.sql', { declaredSize: file.size }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'too_large' });
    expect((error as Error).message).toBe("dump.sql is too large for me to read: it is 1 GB, and I read files up to 5 MB. Share a smaller export or the part you need.");
    expect(slack.downloads).toEqual([]);
  });

  it('stops an undeclared oversized stream as soon as it passes the cap', async () => {
    let sent = 0;
    const endless = () =>
      new Readable({
        read() {
          sent += 64 * 1024;
          this.push(Buffer.alloc(64 * 1024, 0x61));
        },
      });
    const file = slack.addFile({ name: 'huge.log', mimetype: 'text/plain', content: endless, declaredSize: 10 });
    const error = await request(file.url_private_download!, 'huge.log', { maxBytes: MB }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'too_large' });
    // Never the whole stream: at most the cap plus what was in flight.
    expect(sent).toBeLessThan(16 * MB);
  });

  it("treats Slack's sign-in page as no access, never as the file", async () => {
    const file = slack.addFile({ name: 'report.pdf', mimetype: 'application/pdf', content: '%PDF-1.4', access: 'html_login' });
    const error = await request(file.url_private_download!, 'report.pdf').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileReadError);
    expect(error).toMatchObject({
      code: 'no_access',
      message: "I can't open report.pdf: Slack says I don't have access to it. Add me to the channel it was shared in, or share it here again.",
    });
  });

  it('sees a sign-in page served under a file content type', async () => {
    const disguised = await listen((_req, res) => sendText(res, 200, '\n  <!DOCTYPE html><html><body>Sign in</body></html>', 'application/pdf'), 'disguised');
    try {
      const error = await downloadSlackFile({
        url: `${disguised.origin}/files/x.pdf`,
        file: { name: 'x.pdf', fileType: 'pdf' },
        botToken: 'xoxb-t',
        apiUrl: `${disguised.origin}/api/`,
        maxBytes: MB,
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'no_access' });
    } finally {
      await disguised.close();
    }
  });

  it('lets an HTML file be HTML', async () => {
    const page = '<!DOCTYPE html><html><body><h1>Release notes</h1></body></html>';
    const file = slack.addFile({ name: 'notes.html', mimetype: 'text/html', content: page });
    const { bytes } = await request(file.url_private_download!, 'notes.html', { file: { name: 'notes.html', fileType: 'html' } });
    expect(bytes.toString()).toBe(page);
  });

  it('a wrong token ends at the sign-in page: no access', async () => {
    const file = slack.addFile({ name: 'a.csv', mimetype: 'text/csv', content: 'a,b' });
    const error = await request(file.url_private_download!, 'a.csv', { botToken: 'xoxb-wrong' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'no_access' });
  });

  it('a deleted file is deleted', async () => {
    const file = slack.addFile({ name: 'old.docx', mimetype: 'text/plain', content: 'x', access: 'deleted' });
    const error = await request(file.url_private_download!, 'old.docx').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'deleted', message: "I can't open old.docx: it has been deleted from Slack." });
  });

  describe('when Slack has a bad moment', () => {
    let flaky: Listening;
    let answers: Array<[number, Record<string, string>?]> = [];
    let seen = 0;
    beforeAll(async () => {
      flaky = await listen((_req, res) => {
        const [status, headers] = answers[seen++] ?? [200];
        sendText(res, status, status === 200 ? 'finally' : 'busy', 'text/plain', headers);
      }, 'flaky');
    });
    afterAll(() => flaky?.close());
    beforeEach(() => {
      seen = 0;
    });
    const fetchFlaky = (retry = fastRetry) =>
      downloadSlackFile({ url: `${flaky.origin}/f/x.txt`, file: { name: 'x.txt' }, botToken: 'xoxb-t', apiUrl: `${flaky.origin}/api/`, maxBytes: MB, retry });

    it('retries 5xx and 429 (honouring Retry-After) and then succeeds', async () => {
      answers = [[503], [429, { 'retry-after': '0' }]];
      const { bytes } = await fetchFlaky();
      expect(bytes.toString()).toBe('finally');
      expect(seen).toBe(3);
    });

    it('gives up after the bounded number of tries, saying so', async () => {
      answers = [[502], [502], [502], [502]];
      const error = await fetchFlaky().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FileDownloadError);
      expect((error as Error).message).toBe("Slack answered HTTP 502, so I couldn't download x.txt after 3 tries. Ask again in a minute.");
      expect(seen).toBe(3);
    });

    it('does not wait out a Retry-After longer than it accepts', async () => {
      answers = [[429, { 'retry-after': '3600' }]];
      const error = await fetchFlaky().catch((e: unknown) => e);
      expect((error as Error).message).toContain('rate-limiting');
      expect(seen).toBe(1);
    });
  });

  it('stops a download that takes longer than its timeout', async () => {
    const silent = await listen(() => new Promise<void>(() => {}), 'silent');
    try {
      const error = await downloadSlackFile({
        url: `${silent.origin}/f/slow.pdf`,
        file: { name: 'slow.pdf' },
        botToken: 'xoxb-t',
        apiUrl: `${silent.origin}/api/`,
        maxBytes: MB,
        timeoutMs: 200,
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'timeout' });
      expect((error as Error).message).toContain('Downloading slow.pdf from Slack took longer than');
    } finally {
      await silent.close();
    }
  });
});
