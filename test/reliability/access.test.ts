/**
 * Who may ask, and how often: channel and user allowlists (ALLOWED_CHANNELS, ALLOWED_USERS) and the per-user rate
 * limit (USER_RATE_LIMIT_PER_MINUTE), each answered with a polite note only the asker sees.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANA, BEN, CHANNEL, startHarness, type Harness } from '../support/harness';

const EVE = 'U0EVE';
const CAL = 'U0CAL';
const RANDOM = 'C0RANDOM';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { ALLOWED_CHANNELS: CHANNEL, ALLOWED_USERS: `${ANA},${BEN},${CAL}`, USER_RATE_LIMIT_PER_MINUTE: '2' } });
  h.slack.addUser({ id: EVE, name: 'eve', displayName: 'Eve' });
  h.slack.addUser({ id: CAL, name: 'cal', displayName: 'Cal' });
  h.slack.addChannel({ id: RANDOM, name: 'random' });
});
afterAll(() => h.close());
beforeEach(() => {
  h.slack.reset();
  h.model.reset();
  h.model.setDefault({ text: 'Answered.' });
});

const ephemeralsTo = (user: string) => h.slack.ephemerals.filter((e) => e.user === user).map((e) => e.text ?? '');

describe('access', () => {
  it('refuses politely in a channel that is not on the allowlist, and does no work there', async () => {
    const { ts } = await h.mention({ channel: RANDOM, user: ANA, text: `<@${h.slack.botUserId}> hello from #random` });
    await h.slack.waitFor(() => ephemeralsTo(ANA).length === 1);
    expect(ephemeralsTo(ANA)[0]).toMatch(/^Sorry, I’m not set up to answer in this channel\./);
    expect(h.slack.ephemerals[0]).toMatchObject({ channel: RANDOM });
    expect(h.model.requests).toHaveLength(0);
    expect(h.slack.botMessages(RANDOM, ts)).toHaveLength(0);
  });

  it('refuses politely someone who is not on the user allowlist', async () => {
    const { ts } = await h.mention({ user: EVE, text: `<@${h.slack.botUserId}> can I ask too?` });
    await h.slack.waitFor(() => ephemeralsTo(EVE).length === 1);
    expect(ephemeralsTo(EVE)[0]).toMatch(/^Sorry, I can only answer people on my access list\./);
    expect(h.model.requests).toHaveLength(0);
    expect(h.slack.botMessages(CHANNEL, ts)).toHaveLength(0);
  });

  it('answers a direct message from someone on the user allowlist: DMs are not channels, ALLOWED_CHANNELS does not apply', async () => {
    const dm = 'D0ANA';
    h.slack.addChannel({ id: dm, name: 'ana-dm' });
    const { ts } = await h.say({ channel: dm, user: ANA, text: 'a question in private', channelType: 'im' });
    expect(await h.answers(dm, ts)).toEqual(['Answered.']);
    expect(ephemeralsTo(ANA)).toEqual([]);
  });

  it('refuses a direct message from someone not on the user allowlist', async () => {
    const dm = 'D0EVE';
    h.slack.addChannel({ id: dm, name: 'eve-dm' });
    const { ts } = await h.say({ channel: dm, user: EVE, text: 'can I ask here?', channelType: 'im' });
    await h.slack.waitFor(() => ephemeralsTo(EVE).length === 1);
    expect(ephemeralsTo(EVE)[0]).toMatch(/^Sorry, I can only answer people on my access list\./);
    expect(h.slack.botMessages(dm, ts)).toHaveLength(0);
  });

  it('refuses direct messages with ALLOW_DIRECT_MESSAGES=false, saying where to ask instead', async () => {
    await h.restart({ ALLOW_DIRECT_MESSAGES: 'false' });
    try {
      const dm = 'D0BENDM';
      h.slack.addChannel({ id: dm, name: 'ben-dm' });
      const { ts } = await h.say({ channel: dm, user: BEN, text: 'a private question', channelType: 'im' });
      await h.slack.waitFor(() => ephemeralsTo(BEN).length === 1);
      expect(ephemeralsTo(BEN)).toEqual(['Sorry, I don’t answer direct messages here. Mention me in a channel I’m in instead.']);
      expect(h.model.requests).toHaveLength(0);
      expect(h.slack.botMessages(dm, ts)).toHaveLength(0);
    } finally {
      await h.restart();
    }
  });

  it('answers a user up to the rate limit, then tells them plainly to wait a minute', async () => {
    const asked = [];
    for (const n of [1, 2]) {
      const { ts } = await h.mention({ user: BEN, text: `<@${h.slack.botUserId}> question ${n}` });
      asked.push(ts);
      await h.answers(CHANNEL, ts);
    }
    const { ts: third } = await h.mention({ user: BEN, text: `<@${h.slack.botUserId}> question 3` });
    await h.slack.waitFor(() => ephemeralsTo(BEN).length === 1);
    expect(ephemeralsTo(BEN)[0]).toBe('You’ve asked me 2 questions in the last minute, which is my limit. Give me a minute and ask again.');
    expect(h.slack.ephemerals.find((e) => e.user === BEN)).toMatchObject({ thread_ts: undefined });
    expect(h.model.requests).toHaveLength(2);
    expect(h.slack.botMessages(CHANNEL, third)).toHaveLength(0);
    // Someone else is not limited by Ben's questions.
    const { ts: anas } = await h.mention({ user: ANA, text: `<@${h.slack.botUserId}> my turn` });
    expect(await h.answers(CHANNEL, anas)).toEqual(['Answered.']);
  });

  it('tells a user over the limit once per window, not once per message: a burst of 30 over the limit gets one refusal', async () => {
    const refusedBefore = h.logs.filter((line) => line.includes('"message refused"') && line.includes(CAL)).length;
    const sent = await Promise.all(
      Array.from({ length: 32 }, (_, n) => h.mention({ user: CAL, text: `<@${h.slack.botUserId}> burst question ${n}` })),
    );
    expect(sent.every(({ status }) => status === 200)).toBe(true);
    // Idle: every one of the 32 decided (2 answered, 30 refused), whichever order they were admitted in.
    await h.slack.waitFor(() => h.logs.filter((line) => line.includes('"message refused"') && line.includes(CAL)).length - refusedBefore === 30, 30_000);
    // The two within the limit are answered; the thirty over it share one note.
    await h.slack.waitFor(() => sent.filter(({ ts }) => h.slack.botMessages(CHANNEL, ts).some((m) => m.text === 'Answered.')).length === 2, 30_000);
    expect(h.model.requests).toHaveLength(2);
    expect(ephemeralsTo(CAL)).toEqual(['You’ve asked me 2 questions in the last minute, which is my limit. Give me a minute and ask again.']);
  });
});
