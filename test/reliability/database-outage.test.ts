/**
 * PostgreSQL going away and coming back, for real: the app talks to a scratch database through a TCP proxy that
 * the test switches off. Events are still acknowledged at once, nothing crashes, and the work is done when the
 * database is back. (The intake's bounds under a long outage are in test/runs/intake.test.ts, on every driver.)
 *
 * Needs TEST_DATABASE_URL; without it the suite is skipped with a note.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL, startHarness, type Harness } from '../support/harness';
import type { DatabaseHandle } from '../../src/store/database';
import { findThread } from '../../src/store/thread-store';
import { listThreadRuns } from '../../src/store/run-store';
import type { TcpProxy } from './support/tcp-proxy';
import { openProxiedScratchPostgres, type ProxiedPostgres } from './support/proxied-postgres';
import { eventually } from '../support/eventually';

const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) console.warn('[database-outage.test] skipped: set TEST_DATABASE_URL to run the PostgreSQL outage tests');

describe.skipIf(!adminUrl)('the database briefly unavailable', () => {
  let h: Harness;
  let proxy: TcpProxy;
  let database: DatabaseHandle;
  let proxied: ProxiedPostgres;

  beforeAll(async () => {
    proxied = await openProxiedScratchPostgres(adminUrl!, 4);
    ({ database, proxy } = proxied);
    h = await startHarness({ start: { database, leaseMs: 10_000 } });
  });
  afterAll(async () => {
    await h?.close();
    await proxied?.close();
  });
  beforeEach(async () => {
    await proxy.up();
    h.slack.reset();
    h.model.reset();
  });

  /** The status and the body, so that a failure says which check failed. */
  const health = async () => {
    const response = await fetch(`http://127.0.0.1:${h.app.port}/healthz`);
    return `${response.status} ${await response.text()}`;
  };

  it('acknowledges a mention while the database is down, and answers it once the database is back', async () => {
    h.model.enqueue({ text: 'Answered after the outage.' });
    await proxy.down();
    expect(await health()).toBe('503 {"ok":false,"error":"database unreachable"}');

    // The acknowledgement does not wait for the database (Slack would retry after 3 s).
    const { ts, status } = await h.mention({ text: `<@${h.slack.botUserId}> are you there?` });
    expect(status).toBe(200);
    // Several failed writes and a failed claim: the outage has been met, and still nothing was asked of the model.
    await eventually(() => h.logs.filter((line) => line.includes('could not record an incoming message; retrying')).length >= 3 && h.logs.some((line) => line.includes('could not claim runs')));
    expect(h.model.requests).toHaveLength(0);

    await proxy.up();
    expect(await h.answers(CHANNEL, ts, 1, 30_000)).toEqual(['Answered after the outage.']);
    // Healthy again; the body also carries the model's state (ok), checked at start.
    expect(await health()).toMatch(/^200 \{"ok":true[,}]/);
    const warnings = h.logs.filter((line) => line.includes('could not record an incoming message') && line.includes('"level":"warn"'));
    expect(warnings).toHaveLength(1);
  });

  it('finishes a run through an outage in its middle, posting the answer once', async () => {
    h.model.enqueue({ delayMs: 2_500, then: { text: 'Survived the outage.' } });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> long question` });
    await h.model.waitForRequests(1);
    const logsBefore = h.logs.length;
    await proxy.down(); // the database is gone while the run works, well within its lease
    await eventually(() => h.logs.slice(logsBefore).some((line) => line.includes('could not claim runs')));
    await proxy.up();

    expect(await h.answers(CHANNEL, ts, 1, 30_000)).toEqual(['Survived the outage.']);
    const thread = await findThread(database.db, CHANNEL, ts);
    await expect.poll(async () => (await listThreadRuns(database.db, thread!.id))[0]?.status, { timeout: 15_000 }).toBe('done');
    expect(h.slack.botMessages(CHANNEL, ts).filter((m) => m.metadata === undefined)).toHaveLength(1);
  });
});
