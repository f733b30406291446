import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { applyMessageEvent, findIndexedMessage, indexMessages } from '../../src/knowledge/message-index';
import { backfillChannel, backfillChannels } from '../../src/knowledge/backfill';
import { searchMessages } from '../../src/knowledge/search-messages';
import { sweepExpiredContent } from '../../src/store/retention';
import { rowsOf } from '../../src/store/database';
import { testDatabases } from '../support/databases';
import { openKnowledgeBed, tsHoursAgo, type KnowledgeBed } from './support';

const TEAM = 'T0TEAM';

describe.each(testDatabases())('the message index on $label', (database) => {
  let bed: KnowledgeBed;
  const search = (query: string | string[], userId = 'U0ANA') =>
    searchMessages(bed.handle.db, bed.directory, { asker: { teamId: TEAM, userId }, queries: Array.isArray(query) ? query : [query], limit: 5 });
  const texts = async (query: string | string[], userId?: string) => {
    const result = await search(query, userId);
    return result.kind === 'hits' ? result.hits.map((h) => h.snippet.replace(/[«»]/g, '')) : [];
  };

  beforeAll(async () => {
    bed = await openKnowledgeBed(database);
    bed.slack.addUser({ id: 'U0ANA', name: 'ana', realName: 'Ana Lima' });
    bed.slack.addChannel({ id: 'C0EVENTS', name: 'events' });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('takes new messages, edits and deletions from message events', async () => {
    const base = { type: 'message', channel: 'C0EVENTS', channel_type: 'channel', team: TEAM };
    const ts = tsHoursAgo(5);
    expect(await applyMessageEvent(bed.handle.db, { ...base, user: 'U0ANA', text: 'The canary deploy goes out on Thursdays', ts }, { teamId: TEAM })).toBe('indexed');
    expect(await texts('canary deploy')).toEqual(['The canary deploy goes out on Thursdays']);

    const edit = { ...base, subtype: 'message_changed', hidden: true, ts: tsHoursAgo(4), message: { type: 'message', user: 'U0ANA', text: 'The blue-green rollout goes out on Fridays', ts, edited: { user: 'U0ANA', ts: tsHoursAgo(4) } }, previous_message: { ts, text: 'The canary deploy goes out on Thursdays' } };
    expect(await applyMessageEvent(bed.handle.db, edit, { teamId: TEAM })).toBe('updated');
    expect(await texts('blue-green rollout Fridays')).toEqual(['The blue-green rollout goes out on Fridays']);
    expect(await texts('canary Thursdays')).toEqual([]);
    const hit = await search('rollout');
    expect(hit.kind === 'hits' && hit.hits[0]?.edited).toBe(true);

    expect(await applyMessageEvent(bed.handle.db, { ...base, subtype: 'message_deleted', hidden: true, ts: tsHoursAgo(3), deleted_ts: ts, previous_message: { ts } }, { teamId: TEAM })).toBe('deleted');
    expect(await texts('blue-green rollout')).toEqual([]);
    expect(await findIndexedMessage(bed.handle.db, 'C0EVENTS', ts)).toMatchObject({ text: '', deleted: true });
    // A late edit (or a backfill page read before the deletion) does not bring it back.
    await applyMessageEvent(bed.handle.db, edit, { teamId: TEAM });
    expect(await texts('blue-green rollout')).toEqual([]);
  });

  it('ignores joins, threadwise\'s own messages and malformed events', async () => {
    const base = { type: 'message', channel: 'C0EVENTS', team: TEAM };
    expect(await applyMessageEvent(bed.handle.db, { ...base, subtype: 'channel_join', user: 'U0ANA', text: '<@U0ANA> has joined the channel', ts: tsHoursAgo(2) }, { teamId: TEAM })).toBe('ignored');
    expect(await applyMessageEvent(bed.handle.db, { ...base, user: 'U0BOT', text: 'Here is my answer about joins', ts: tsHoursAgo(2, 200) }, { teamId: TEAM, botUserId: 'U0BOT' })).toBe('ignored');
    expect(await applyMessageEvent(bed.handle.db, { type: 'message', channel: 42 }, { teamId: TEAM })).toBe('ignored');
    expect(await texts('joined answer')).toEqual([]);
  });

  it('backfills a channel: history and thread replies, paged, waiting out a 429 on the clock', async () => {
    const { slack } = bed;
    slack.addChannel({ id: 'C0HIST', name: 'history' });
    for (let i = 0; i < 5; i += 1) slack.addMessage('C0HIST', { ts: tsHoursAgo(48 - i), user: 'U0ANA', text: `Status report number ${i} about the ledger service` });
    const parent = slack.addMessage('C0HIST', { ts: tsHoursAgo(40), user: 'U0ANA', text: 'Who owns the payroll export job?' });
    for (let i = 0; i < 3; i += 1) slack.addMessage('C0HIST', { ts: tsHoursAgo(39 - i), thread_ts: parent.ts, user: 'U0ANA', text: `Reply ${i}: the payroll export belongs to the finance platform team` });
    slack.addMessage('C0HIST', { ts: tsHoursAgo(24 * 45), user: 'U0ANA', text: 'An ancient message about the payroll export, long before the window' });
    slack.maxPageSize = 2;
    slack.failNext('conversations.history', { status: 429, retryAfter: 3 });
    slack.failNext('conversations.replies', { status: 429, retryAfter: 2 });
    const waitsBefore = bed.clock.waits.length;

    const result = await backfillChannel(bed.client, bed.handle.db, 'C0HIST', { teamId: TEAM, clock: bed.clock, days: 30 });

    expect(bed.clock.waits.slice(waitsBefore)).toEqual([3000, 2000]);
    expect(result).toMatchObject({ messages: 9, threads: 1, truncated: false });
    expect(result.pages).toBeGreaterThanOrEqual(5);
    const history = slack.callsTo('conversations.history');
    expect(history.filter((c) => c.outcome === 'ok').length).toBeGreaterThanOrEqual(3);
    expect(history.slice(1).every((c, i) => i === 0 || c.body.cursor)).toBe(true);
    expect(await texts('payroll export owner')).toHaveLength(4);
    expect((await texts('ancient payroll')).some((t) => t.includes('ancient'))).toBe(false);
    const reply = await findIndexedMessage(bed.handle.db, 'C0HIST', tsHoursAgo(39));
    expect(reply).toMatchObject({ threadTs: parent.ts, deleted: false });
  });

  it('backfills several channels, skipping one done recently', async () => {
    bed.slack.reset();
    bed.slack.addChannel({ id: 'C0MORE', name: 'more' });
    bed.slack.addMessage('C0MORE', { ts: tsHoursAgo(10), user: 'U0ANA', text: 'The quarterly OKR review is moved to room Tessellate' });
    const done = await backfillChannels(bed.client, bed.handle.db, ['C0HIST', 'C0MORE'], { teamId: TEAM, clock: bed.clock });
    expect([...done.keys()]).toEqual(['C0MORE']);
    expect(await texts('Tessellate')).toHaveLength(1);
  });

  it('ranks a message holding two common words, or a rare one, above thousands that mention one common word', async () => {
    const db = bed.handle.db;
    bed.slack.addChannel({ id: 'C0BUSY', name: 'busy' });
    const chatter = Array.from({ length: 6_000 }, (_, i) => ({
      teamId: TEAM,
      channelId: 'C0BUSY',
      ts: tsHoursAgo(200 - i / 100, i + 1),
      userId: 'U0ANA',
      text: i % 2 === 0 ? `deploy ${i} finished for service ${i % 97}` : `review request ${i} for the cluster ${i % 89}`,
    }));
    await indexMessages(db, chatter);
    await applyMessageEvent(db, { type: 'message', channel: 'C0BUSY', team: TEAM, user: 'U0ANA', text: 'We moved the cluster deploy to Friday', ts: tsHoursAgo(1, 7) }, { teamId: TEAM });
    await applyMessageEvent(db, { type: 'message', channel: 'C0BUSY', team: TEAM, user: 'U0ANA', text: 'The Zanzibar migration is cancelled', ts: tsHoursAgo(1, 8) }, { teamId: TEAM });
    expect((await texts('when is the cluster deploy?'))[0]).toBe('We moved the cluster deploy to Friday');
    expect((await texts('deploy of Zanzibar'))[0]).toBe('The Zanzibar migration is cancelled');
    // One common word alone still finds its messages.
    expect(await texts('deploy')).toHaveLength(5);
  });

  it('removes messages posted before RETENTION_DAYS, keeps the rest', async () => {
    const db = bed.handle.db;
    const old = new Date(Date.now() - 40 * 24 * 60 * 60_000);
    const oldTs = `${Math.floor(old.getTime() / 1000)}.000100`;
    await applyMessageEvent(db, { type: 'message', channel: 'C0EVENTS', team: TEAM, user: 'U0ANA', text: 'Old news about the xylophone budget', ts: oldTs }, { teamId: TEAM });
    const recentTs = `${Math.floor(Date.now() / 1000) - 3600}.000100`;
    await applyMessageEvent(db, { type: 'message', channel: 'C0EVENTS', team: TEAM, user: 'U0ANA', text: 'Fresh news about the xylophone budget', ts: recentTs }, { teamId: TEAM });
    expect(await texts('xylophone budget')).toHaveLength(2);
    const counts = await sweepExpiredContent(db, 30);
    expect(counts.indexedMessages).toBeGreaterThanOrEqual(1);
    expect(await texts('xylophone budget')).toEqual(['Fresh news about the xylophone budget']);
    const left = rowsOf<{ n: number | string }>(await db.execute(sql`select count(*) as n from indexed_messages where posted_at < now() - interval '30 days'`));
    expect(Number(left[0]!.n)).toBe(0);
  });
});
