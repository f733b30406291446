import { describe, expect, it } from 'vitest';
import { classifySlackBody, parseSlackBody, retryOf, verifySlackSignature } from '../../../src/slack/receiver/signed-request.mjs';
import { signSlackRequest } from '../../fakes/slack-signing';

const SECRET = 'signed-request-test-secret';
const NOW = 1_790_000_000;

function signed(rawBody: string, timestamp = NOW, secret = SECRET) {
  const headers = signSlackRequest(secret, rawBody, timestamp);
  return { signingSecret: SECRET, rawBody, timestamp: headers['x-slack-request-timestamp'], signature: headers['x-slack-signature'], nowSeconds: NOW };
}

describe('verifySlackSignature', () => {
  it('accepts a body signed with the signing secret, within the replay window', () => {
    expect(verifySlackSignature(signed('{"type":"event_callback"}'))).toEqual({ ok: true });
    expect(verifySlackSignature(signed('{}', NOW - 299))).toEqual({ ok: true });
  });

  it('refuses another secret, a changed body and a missing header, saying which', () => {
    expect(verifySlackSignature(signed('{}', NOW, 'another-secret'))).toEqual({ ok: false, reason: 'signature mismatch' });
    expect(verifySlackSignature({ ...signed('{"a":1}'), rawBody: '{"a":2}' })).toEqual({ ok: false, reason: 'signature mismatch' });
    expect(verifySlackSignature({ ...signed('{}'), signature: 'v0=short' })).toEqual({ ok: false, reason: 'signature mismatch' });
    expect(verifySlackSignature({ ...signed('{}'), signature: undefined })).toEqual({ ok: false, reason: 'no x-slack-signature header' });
    expect(verifySlackSignature({ ...signed('{}'), timestamp: 'yesterday' })).toEqual({ ok: false, reason: 'no x-slack-request-timestamp header' });
  });

  it('refuses a correctly signed request replayed after five minutes, or dated in the future', () => {
    expect(verifySlackSignature(signed('{}', NOW - 301))).toMatchObject({ ok: false, reason: expect.stringContaining('stale timestamp (301 s off') });
    expect(verifySlackSignature(signed('{}', NOW + 301))).toMatchObject({ ok: false, reason: expect.stringContaining('stale timestamp') });
  });
});

describe('parseSlackBody', () => {
  it('reads Events API JSON, slash command forms and interaction payloads as Bolt does', () => {
    expect(parseSlackBody('{"type":"event_callback","event":{"type":"app_mention"}}', 'application/json')).toEqual({
      type: 'event_callback',
      event: { type: 'app_mention' },
    });
    expect(parseSlackBody('command=%2Fask&text=hello+there', 'application/x-www-form-urlencoded')).toEqual({ command: '/ask', text: 'hello there' });
    const payload = encodeURIComponent(JSON.stringify({ type: 'block_actions', actions: [{ action_id: 'stop' }] }));
    expect(parseSlackBody(`payload=${payload}`, 'application/x-www-form-urlencoded; charset=utf-8')).toEqual({
      type: 'block_actions',
      actions: [{ action_id: 'stop' }],
    });
  });

  it('throws on bodies that are not an object', () => {
    expect(() => parseSlackBody('{"type":', 'application/json')).toThrow();
    expect(() => parseSlackBody('[1,2]', 'application/json')).toThrow('not an object');
    expect(() => parseSlackBody('payload=%7Bbroken', 'application/x-www-form-urlencoded')).toThrow();
  });
});

describe('classifySlackBody', () => {
  it('answers checks itself, acknowledges events at once and leaves the rest to the app', () => {
    expect(classifySlackBody({ ssl_check: '1' })).toEqual({ kind: 'ssl_check' });
    expect(classifySlackBody({ type: 'url_verification', challenge: 'c-123' })).toEqual({ kind: 'url_verification', challenge: 'c-123' });
    expect(classifySlackBody({ type: 'app_rate_limited', minute_rate_limited: 1 })).toEqual({ kind: 'rate_limited' });
    expect(classifySlackBody({ type: 'event_callback', event: { type: 'app_mention' } })).toEqual({ kind: 'event' });
    // Its ack belongs to the listener, as do a command's and an interaction's (they may carry a response).
    expect(classifySlackBody({ type: 'event_callback', event: { type: 'function_executed' } })).toEqual({ kind: 'needs_app' });
    expect(classifySlackBody({ command: '/ask', text: 'hi' })).toEqual({ kind: 'needs_app' });
    expect(classifySlackBody({ type: 'block_actions' })).toEqual({ kind: 'needs_app' });
  });
});

describe('retryOf', () => {
  it("passes Slack's retry headers on, and nothing when they are absent", () => {
    expect(retryOf({ 'x-slack-retry-num': '2', 'x-slack-retry-reason': 'http_timeout' })).toEqual({ retryNum: 2, retryReason: 'http_timeout' });
    expect(retryOf({})).toEqual({});
  });
});
