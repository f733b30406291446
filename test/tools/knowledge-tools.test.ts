/**
 * search_messages and read_channel as the model calls them, over the fake Slack (real WebClient, real HTTP) and
 * both databases: a decision found from another channel with its permalink, a private channel's message found for a
 * member and never for anyone else — no text, no channel, no count, no hint — and a German question that finds the
 * English message with the model's translated phrasing (and the other way round).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillChannel } from '../../src/knowledge/backfill';
import { createKnowledgeTools, type KnowledgeToolDeps } from '../../src/tools/knowledge-tools';
import type { Tool } from '../../src/tools/tool';
import { testDatabases } from '../support/databases';
import { NOW, openKnowledgeBed, toolContext, tsHoursAgo, type KnowledgeBed } from '../knowledge/support';

const TEAM = 'T0TEAM';
const SECRET_TEXT = 'Codename Bluebird: the staging database password rotation is paused until the Halvorsen acquisition closes';

describe.each(testDatabases())('knowledge tools on $label', (database) => {
  let bed: KnowledgeBed;
  const tools = (userId: string, channelId = 'C0GENERAL', extra: Partial<KnowledgeToolDeps> = {}) => {
    const list = createKnowledgeTools({
      db: bed.handle.db,
      directory: bed.directory,
      request: { teamId: TEAM, channelId, userId, isAdmin: false },
      now: () => NOW,
      ...extra,
    });
    return Object.fromEntries(list.map((tool) => [tool.name, tool])) as Record<string, Tool>;
  };
  const call = (userId: string, name: string, args: Record<string, unknown>) => tools(userId)[name]!.execute(args, toolContext());

  beforeAll(async () => {
    bed = await openKnowledgeBed(database);
    const { slack } = bed;
    slack.addUser({ id: 'U0ANA', name: 'ana', displayName: 'Ana' });
    slack.addUser({ id: 'U0BOB', name: 'bob', displayName: 'Bob' });
    slack.addUser({ id: 'U0MEMBER', name: 'mira', displayName: 'Mira' });
    slack.addUser({ id: 'U0OUTSIDER', name: 'otto', displayName: 'Otto' });
    slack.addChannel({ id: 'C0PLATFORM', name: 'platform' });
    slack.addChannel({ id: 'C0GENERAL', name: 'general' });
    slack.addChannel({ id: 'C0SECRET', name: 'deal-room', isPrivate: true, members: ['U0ANA', 'U0MEMBER'] });
    slack.addChannel({ id: 'C0DOCS', name: 'dokumentation' });

    slack.addMessage('C0PLATFORM', { ts: tsHoursAgo(72), user: 'U0BOB', text: 'How often should we rotate the staging DB password?' });
    slack.addMessage('C0PLATFORM', { ts: tsHoursAgo(71), thread_ts: tsHoursAgo(72), user: 'U0ANA', text: 'Decision: we rotate the staging database password every 30 days, and the on-call engineer does it.' });
    slack.addMessage('C0PLATFORM', { ts: tsHoursAgo(50), user: 'U0BOB', text: 'Lunch order for Friday is pizza again' });
    slack.addMessage('C0SECRET', { ts: tsHoursAgo(30), user: 'U0ANA', text: SECRET_TEXT });
    slack.addMessage('C0DOCS', { ts: tsHoursAgo(20), user: 'U0ANA', text: 'Die Datenbank-Sicherungen laufen jetzt jede Nacht um drei Uhr, die Aufbewahrung beträgt vierzehn Tage.' });
    slack.addMessage('C0GENERAL', { ts: tsHoursAgo(10), user: 'U0BOB', text: 'Welcome to the new folks!' });
    for (const channel of ['C0PLATFORM', 'C0SECRET', 'C0DOCS', 'C0GENERAL']) {
      await backfillChannel(bed.client, bed.handle.db, channel, { teamId: TEAM, clock: bed.clock, days: 30 });
    }
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('finds a decision made in another channel, with who, when and its permalink', async () => {
    const result = await call('U0OUTSIDER', 'search_messages', { query: 'what did we decide about rotating the staging DB password?' });
    expect(result).toContain('#platform · Ana · 2026-11-21');
    expect(result).toContain('reply in a thread');
    expect(result).toMatch(/«rotate» the «staging» «database» «password»|«rotate».*«password»/);
    expect(result).toContain(`link: ${bed.slack.origin}/archives/C0PLATFORM/p${tsHoursAgo(71).replace('.', '')}`);
    expect(result).toContain('<slack_message channel="#platform" author="Ana"');
  });

  it('shows a private channel\'s message to a member, and leaves no trace of it for anyone else', async () => {
    const member = await call('U0MEMBER', 'search_messages', { query: 'staging password rotation' });
    expect(member).toContain('Bluebird');
    expect(member).toContain('#deal-room');
    expect(member).toMatch(/^3 messages/);

    const outsider = await call('U0OUTSIDER', 'search_messages', { query: 'staging password rotation' });
    expect(outsider).toMatch(/^2 messages in the channels you can read/);
    for (const trace of ['Bluebird', 'Halvorsen', 'acquisition', 'deal-room', 'C0SECRET', 'paused', '3 messages', 'private', 'hidden']) {
      expect(outsider).not.toContain(trace);
    }
    // Words only the private message holds: no hit, and nothing that says one exists elsewhere.
    const probe = await call('U0OUTSIDER', 'search_messages', { query: 'Bluebird Halvorsen acquisition' });
    expect(probe).toBe(await call('U0OUTSIDER', 'search_messages', { query: 'Zanzibar quokka' }).then((r) => r.replace('"Zanzibar quokka"', '"Bluebird Halvorsen acquisition"')));
    expect(probe).not.toContain('deal-room');

    // Naming the channel gets the same sentence as a channel threadwise is not in.
    const named = await call('U0OUTSIDER', 'search_messages', { query: 'password', channel: '#deal-room' });
    const unknown = await call('U0OUTSIDER', 'search_messages', { query: 'password', channel: '#no-such-room' });
    expect(named).toBe(unknown.replace('#no-such-room', '#deal-room'));
    expect(await call('U0OUTSIDER', 'read_channel', { channel: 'C0SECRET' })).toBe((await call('U0OUTSIDER', 'read_channel', { channel: 'C0NOPE' })).replace('C0NOPE', 'C0SECRET'));
    expect(await call('U0OUTSIDER', 'read_channel', { channel: '#deal-room' })).toMatch(/^I cannot read "#deal-room" for this person/);
  });

  it('follows membership: a person who joins can read the channel, one who leaves no longer can', async () => {
    bed.slack.setMembers('C0SECRET', ['U0ANA', 'U0MEMBER', 'U0OUTSIDER']);
    bed.directory.onMembershipEvent({ type: 'member_joined_channel', channel: 'C0SECRET', user: 'U0OUTSIDER' });
    expect(await call('U0OUTSIDER', 'search_messages', { query: 'Bluebird' })).toContain('Codename «Bluebird»');
    bed.slack.setMembers('C0SECRET', ['U0ANA', 'U0MEMBER']);
    bed.directory.onMembershipEvent({ type: 'member_left_channel', channel: 'C0SECRET', user: 'U0OUTSIDER' });
    const after = await call('U0OUTSIDER', 'search_messages', { query: 'Bluebird' });
    expect(after).toMatch(/^No message in the channels you can read matches "Bluebird"/);
    expect(after).not.toContain('Codename');
  });

  it('finds the English message for a German question with the translated phrasing, and the other way round', async () => {
    const german = await call('U0OUTSIDER', 'search_messages', {
      query: 'Was haben wir zur Rotation des Staging-Datenbankpassworts beschlossen?',
      queries: ['decision rotate staging database password'],
    });
    expect(german).toContain('we «rotate» the «staging» «database» «password» every 30 days');
    const english = await call('U0OUTSIDER', 'search_messages', {
      query: 'when do the nightly database backups run and how long are they kept?',
      queries: ['Wann laufen die Datenbank-Sicherungen und wie lange ist die Aufbewahrung?'],
    });
    expect(english).toContain('#dokumentation');
    expect(english).toMatch(/«Datenbank-Sicherungen»|«Datenbank»-«Sicherungen»|«Sicherungen»/);
    expect(english).toContain('German');
  });

  it('filters by channel, author and date', async () => {
    const byBob = await call('U0OUTSIDER', 'search_messages', { query: 'staging password', from: 'Bob' });
    expect(byBob).toContain('How often should we');
    expect(byBob).not.toContain('Decision:');
    const byId = await call('U0OUTSIDER', 'search_messages', { query: 'staging password', from: '<@U0ANA>' });
    expect(byId).toContain('Decision:');
    const recent = await call('U0OUTSIDER', 'search_messages', { query: 'staging password', since: '2d' });
    expect(recent).toMatch(/^No message in the channels you can read matches/);
    const inPlatform = await call('U0OUTSIDER', 'search_messages', { query: 'pizza', channel: 'platform' });
    expect(inPlatform).toContain('Lunch order');
    await expect(call('U0OUTSIDER', 'search_messages', { query: 'pizza', since: 'last Tuesday' })).rejects.toThrow(/since must be a date/);
  });

  it('reads a channel with its threads for a summary', async () => {
    const read = await call('U0OUTSIDER', 'read_channel', { channel: '#platform', since: '2026-11-20' });
    expect(read).toMatch(/^#platform since 2026-11-20 00:00 UTC: 3 messages/);
    const lines = read.split('\n');
    const question = lines.findIndex((l) => l.includes('How often should we rotate'));
    expect(lines[question + 1]).toMatch(/^ {2}↳ \[2026-11-21 \d\d:00 UTC\] Ana: Decision:/);
    expect(lines.findIndex((l) => l.includes('Lunch order'))).toBeGreaterThan(question + 1);
    expect(await call('U0MEMBER', 'read_channel', { channel: '#deal-room' })).toContain('Bluebird');
  });
});
