/** Who may ask: the allow-lists and direct messages, decided before any work is done. */
import { describe, expect, it } from 'vitest';
import { refusalFor, type AccessPolicy } from '../../src/runs/access-policy';
import type { Trigger } from '../../src/runs/trigger';

const OPEN: AccessPolicy = { allowedChannels: [], allowedUsers: [], userRateLimitPerMinute: 0 };
const ask = (channelId: string, userId = 'U0ANA'): Trigger => ({
  channelId,
  threadTs: '1700000000.000100',
  messageTs: '1700000000.000100',
  userId,
  engages: true,
  needsEngagedThread: false,
  hasFiles: false,
});

describe('the access policy', () => {
  it('lets anyone ask anywhere when no list is set', () => {
    expect(refusalFor(OPEN, ask('C0RANDOM'), 0)).toBeUndefined();
    expect(refusalFor(OPEN, ask('D0ANA'), 0)).toBeUndefined();
  });

  it('answers only in the listed channels, and in DMs, which are not channels', () => {
    const policy = { ...OPEN, allowedChannels: ['C0GENERAL'] };
    expect(refusalFor(policy, ask('C0GENERAL'), 0)).toBeUndefined();
    expect(refusalFor(policy, ask('C0RANDOM'), 0)?.reason).toBe('channel_not_allowed');
    expect(refusalFor(policy, ask('D0ANA'), 0)).toBeUndefined();
  });

  it('refuses DMs when ALLOW_DIRECT_MESSAGES is false, with a sentence saying where to ask instead', () => {
    const refusal = refusalFor({ ...OPEN, allowDirectMessages: false }, ask('D0ANA'), 0);
    expect(refusal).toEqual({ reason: 'channel_not_allowed', message: 'Sorry, I don’t answer direct messages here. Mention me in a channel I’m in instead.' });
    expect(refusalFor({ ...OPEN, allowDirectMessages: false }, ask('C0GENERAL'), 0)).toBeUndefined();
  });

  it('applies the user list everywhere, DMs included', () => {
    const policy = { ...OPEN, allowedUsers: ['U0ANA'] };
    expect(refusalFor(policy, ask('D0EVE', 'U0EVE'), 0)?.reason).toBe('user_not_allowed');
    expect(refusalFor(policy, ask('C0GENERAL', 'U0ANA'), 0)).toBeUndefined();
  });
});
