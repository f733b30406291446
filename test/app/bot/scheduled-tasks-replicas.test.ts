/**
 * Two replicas of the real app (startThreadwise) on one PostgreSQL, each with its own connection pool, sharing a
 * test Clock: an hourly task scheduled through one of them is answered once per due time, whichever replica claims
 * it — never by both, never skipped.
 *
 * Needs TEST_DATABASE_URL (CI sets it); without it the suite is skipped with a note.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { startThreadwise, type RunningThreadwise } from '../../../src/app/index';
import { openDatabase } from '../../../src/app/database/open-database';
import { rowsOf, type DatabaseHandle } from '../../../src/store/database';
import { createLogger } from '../../../src/logging/logger';
import { startHarness, ANA, CHANNEL, SIGNING_SECRET, type Harness } from '../../support/harness';
import { createScratchPostgres } from '../../support/databases';
import { createFakeClock } from '../../support/test-clock';
import { eventually } from '../../support/eventually';

const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) console.warn('[scheduled-tasks-replicas.test] skipped: set TEST_DATABASE_URL to a PostgreSQL admin URL');

const MINUTE = 60_000;
const START = Date.UTC(2026, 10, 24, 9, 30, 0);

describe.skipIf(!adminUrl)('an hourly task on two replicas', { timeout: 180_000 }, () => {
  const clock = createFakeClock(START);
  const timers = { clock, pollMs: 10 * MINUTE, leaseMs: 120_000, approvalSweepMs: 10 * MINUTE, housekeepingMs: 24 * 60 * MINUTE, firstHousekeepingMs: 24 * 60 * MINUTE, taskCheckEveryMs: MINUTE };
  let scratch: { url: string; drop(): Promise<void> };
  let h: Harness;
  let second: { app: RunningThreadwise; database: DatabaseHandle } | undefined;
  let first: DatabaseHandle;

  beforeAll(async () => {
    scratch = await createScratchPostgres(adminUrl!);
    first = await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 4 });
    h = await startHarness({ start: { ...timers, database: first, workerId: 'replica-a' } });
    // An occurrence runs with its owner's access: Ana is in the channel.
    h.slack.setMembers(CHANNEL, [ANA]);
    const database = await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 4 });
    const loaded = loadConfig({
      SLACK_BOT_TOKEN: h.slack.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: h.slack.apiUrl,
      OPENAI_API_KEY: 'sk-test-key-0123456789abcdef',
      OPENAI_BASE_URL: h.model.url,
      OPENAI_MODEL: 'gpt-4o-mini',
      PORT: '0',
      SKILLS_DIR: 'skills',
      TIMEZONE: 'Europe/Berlin',
      USER_RATE_LIMIT_PER_MINUTE: '0',
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const logger = createLogger({ level: 'debug', secrets: [h.slack.botToken], write: () => {} });
    second = { app: await startThreadwise(loaded.config, { ...timers, logger, database, workerId: 'replica-b' }), database };
  }, 180_000);
  afterAll(async () => {
    await second?.app.stop(1_000).catch(() => {});
    await second?.database.close();
    await h?.close();
    await first?.close();
    await scratch?.drop();
  });

  const idle = () => Promise.all([h.app.idle(), second!.app.idle()]);

  it('answers each due time once', async () => {
    // Each occurrence's answer names its due time, read from the request the model gets.
    h.model.setDefault((request) => {
      const asked = JSON.stringify(request.messages);
      const due = /due Tue 24 Nov, (\d\d:\d\d)/.exec(asked)?.[1] ?? 'unknown';
      return { text: `Hourly check for ${due} (HOURLY).` };
    });
    h.model.enqueue({ toolCalls: [{ name: 'schedule_task', arguments: { prompt: 'check the queue depth', when: '0 * * * *' } }] }, { text: 'Scheduled.' });
    const { ts } = await h.mention({ user: ANA, text: `<@${h.slack.botUserId}> every hour, check the queue depth` });
    await h.answers(CHANNEL, ts, 2, 30_000);
    await idle();

    for (let hour = 0; hour < 3; hour++) {
      clock.advance(60 * MINUTE);
      await idle();
    }
    const answered = () => h.slack.botMessages(CHANNEL, ts).filter((m) => JSON.stringify([m.text, m.blocks]).includes('(HOURLY)'));
    await eventually(() => answered().length >= 3, { timeoutMs: 30_000 });
    await idle();

    const dueTimes = answered().map((m) => /for (\d\d:\d\d)/.exec(JSON.stringify(m.blocks ?? m.text))?.[1]);
    expect(dueTimes.sort()).toEqual(['10:00', '11:00', '12:00']);
    const rows = rowsOf<{ due_at: string; claimed_by: string; run_id: number }>(
      await first.db.execute(sql`select due_at, claimed_by, run_id from task_occurrences order by due_at`),
    );
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((row) => row.run_id)).size).toBe(3);
    const runs = rowsOf<{ count: number }>(await first.db.execute(sql`select count(*)::int as count from runs where trigger_ts like 'task:%'`));
    expect(Number(runs[0]!.count)).toBe(3);
  });
});
