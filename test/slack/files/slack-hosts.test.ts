import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelay } from '../../../src/slack/files/download-retry';
import { isSlackFileHost } from '../../../src/slack/files/slack-hosts';

const slackApi = 'https://slack.com/api/';
const allowed = (url: string, api = slackApi) => isSlackFileHost(new URL(url), api);

describe('where the bot token may be sent', () => {
  it("allows Slack's own file hosts over https", () => {
    expect(allowed('https://files.slack.com/files-pri/T1-F1/download/a.pdf')).toBe(true);
    expect(allowed('https://acme.enterprise.slack.com/files/x')).toBe(true);
    expect(allowed('https://a.slack-edge.com/x.png')).toBe(true);
  });

  it('refuses look-alikes, plain http and credentials in the URL', () => {
    expect(allowed('https://files.slack.com.evil.example/a.pdf')).toBe(false);
    expect(allowed('https://evilslack.com/a.pdf')).toBe(false);
    expect(allowed('http://files.slack.com/a.pdf')).toBe(false);
    expect(allowed('https://user:pw@files.slack.com/a.pdf')).toBe(false);
    expect(allowed('https://docs.google.com/document/d/1')).toBe(false);
  });

  it('trusts the configured API host with its own scheme and port, and nothing else on that machine', () => {
    const api = 'http://127.0.0.1:4567/api/';
    expect(allowed('http://127.0.0.1:4567/files/F1/download/a.pdf', api)).toBe(true);
    expect(allowed('http://127.0.0.1:9999/files/F1', api)).toBe(false);
    expect(allowed('https://127.0.0.1:4567/files/F1', api)).toBe(false);
  });

  it("trusts a GovSlack API domain's file subdomains", () => {
    const api = 'https://slack-gov.com/api/';
    expect(allowed('https://files.slack-gov.com/files-pri/x', api)).toBe(true);
    expect(allowed('https://files.slack-gov.com.evil.example/x', api)).toBe(false);
  });
});

describe('waiting before a retry', () => {
  const policy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 15_000 };

  it('reads Retry-After as seconds or as a date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:05 GMT', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT'))).toBe(5000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('backs off, honours what Slack asks, and stops when tries run out or the wait is too long', () => {
    expect(retryDelay(policy, 1, null)).toBe(500);
    expect(retryDelay(policy, 2, null)).toBe(1000);
    expect(retryDelay(policy, 1, '3')).toBe(3000);
    expect(retryDelay(policy, 3, null)).toBeUndefined();
    expect(retryDelay(policy, 1, '60')).toBeUndefined();
  });
});
