/**
 * Dedupe of Slack's deliveries: an event id is taken in once however often Slack retries it, and a message that
 * arrives as both app_mention and message (two event ids) is claimed once — also when replicas race for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../src/store/database';
import { rowsOf } from '../../src/store/database';
import { claimEvents, claimMessages, pruneDedupeRecords } from '../../src/store/event-store';
import { testDatabases } from '../support/databases';

describe.each(testDatabases())('event and message dedupe on $label', (database) => {
  let handle: DatabaseHandle;

  beforeAll(async () => {
    handle = await database.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  it('takes an event id in once; Slack’s retries of it are duplicates', async () => {
    expect(await claimEvents(handle.db, ['Ev001'])).toEqual([true]);
    expect(await claimEvents(handle.db, ['Ev001'])).toEqual([false]);
    expect(await claimEvents(handle.db, ['Ev002'])).toEqual([true]);
  });

  it('claims a burst in one statement, answering for each id in order, repeats within the burst included', async () => {
    expect(await claimEvents(handle.db, ['Ev0B3', 'Ev001', 'Ev0B1', 'Ev0B3', 'Ev0B2'])).toEqual([true, false, true, false, true]);
    expect(await claimEvents(handle.db, [])).toEqual([]);
  });

  it('lets each of two replicas claiming overlapping bursts in opposite orders win a message once, without deadlock', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `Ev0X${String(i).padStart(2, '0')}`);
    const [a, b] = await Promise.all([claimEvents(handle.db, ids), claimEvents(handle.db, [...ids].reverse())]);
    const winsPerId = ids.map((_, i) => Number(a[i]) + Number(b[ids.length - 1 - i]));
    expect(winsPerId.every((wins) => wins === 1)).toBe(true);
  });

  it('lets exactly one of ten simultaneous deliveries of an event win', async () => {
    const wins = await Promise.all(Array.from({ length: 10 }, () => claimEvents(handle.db, ['Ev0RACE'])));
    expect(wins.flat().filter(Boolean)).toHaveLength(1);
  });

  it('claims a message once per channel, whichever event carried it', async () => {
    const message = { channelId: 'C1', messageTs: '1.000100' };
    const claims = await Promise.all([claimMessages(handle.db, [message]), claimMessages(handle.db, [message])]);
    expect(claims.flat().filter(Boolean)).toHaveLength(1);
    // The same ts in another channel is another message; the same message twice in one burst is claimed once.
    const other = { channelId: 'C2', messageTs: '1.000100' };
    expect(await claimMessages(handle.db, [other, message, other])).toEqual([true, false, false]);
  });

  it('forgets records older than Slack’s retry horizon and keeps recent ones', async () => {
    await claimEvents(handle.db, ['Ev0OLD', 'Ev0NEW']);
    await handle.db.execute(sql`update slack_events set created_at = now() - interval '3 days' where event_id = 'Ev0OLD'`);
    await pruneDedupeRecords(handle.db, 48);
    const left = rowsOf<{ event_id: string }>(await handle.db.execute(sql`select event_id from slack_events where event_id like 'Ev0%'`));
    expect(left.map((row) => row.event_id)).toContain('Ev0NEW');
    expect(left.map((row) => row.event_id)).not.toContain('Ev0OLD');
    expect(await claimEvents(handle.db, ['Ev0OLD'])).toEqual([true]);
  });
});
