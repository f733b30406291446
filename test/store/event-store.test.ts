/**
 * Dedupe of Slack's deliveries: an event id is taken in once however often Slack retries it, and a message that
 * arrives as both app_mention and message (two event ids) is claimed once — also when replicas race for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../src/store/db';
import { rowsOf } from '../../src/store/db';
import { claimEvent, claimMessage, pruneDedupeRecords } from '../../src/store/event-store';
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
    expect(await claimEvent(handle.db, 'Ev001')).toBe(true);
    expect(await claimEvent(handle.db, 'Ev001')).toBe(false);
    expect(await claimEvent(handle.db, 'Ev002')).toBe(true);
  });

  it('lets exactly one of ten simultaneous deliveries of an event win', async () => {
    const wins = await Promise.all(Array.from({ length: 10 }, () => claimEvent(handle.db, 'Ev0RACE')));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('claims a message once per channel, whichever event carried it', async () => {
    const claims = await Promise.all([claimMessage(handle.db, 'C1', '1.000100'), claimMessage(handle.db, 'C1', '1.000100')]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimMessage(handle.db, 'C2', '1.000100')).toBe(true); // same ts, other channel: another message
  });

  it('forgets records older than Slack’s retry horizon and keeps recent ones', async () => {
    await claimEvent(handle.db, 'Ev0OLD');
    await claimEvent(handle.db, 'Ev0NEW');
    await handle.db.execute(sql`update slack_events set created_at = now() - interval '3 days' where event_id = 'Ev0OLD'`);
    await pruneDedupeRecords(handle.db, 48);
    const left = rowsOf<{ event_id: string }>(await handle.db.execute(sql`select event_id from slack_events where event_id like 'Ev0%'`));
    expect(left.map((row) => row.event_id)).toContain('Ev0NEW');
    expect(left.map((row) => row.event_id)).not.toContain('Ev0OLD');
    expect(await claimEvent(handle.db, 'Ev0OLD')).toBe(true);
  });
});
