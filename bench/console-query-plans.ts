/**
 * `npx tsx bench/console-query-plans.ts` (needs TEST_DATABASE_URL or BENCH_DATABASE_URL, a PostgreSQL to create a
 * scratch database in): seeds 100,000 runs — 60 days, 40 channels, 400 users, 4 models — migrates, ANALYZEs, and
 * prints EXPLAIN (ANALYZE, BUFFERS) of the console's and the daily limit's queries exactly as the store sends them.
 * The figures are in README § Operator console.
 */
import { sql, type SQL } from 'drizzle-orm';
import { openDatabase } from '../src/app/database/open-database';
import { rowsOf, type Database } from '../src/store/database';
import { listRuns, listRunsInProgress, readQueueState } from '../src/store/console-queries';
import { readTopSpendersToday, readUsage, readUsageTotals } from '../src/store/usage-store';
import { readTodaysSpend } from '../src/store/spend-limit-store';
import { createScratchPostgres } from '../test/support/databases';

const RUNS = 100_000;
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!adminUrl) {
  process.stderr.write('console-query-plans: set TEST_DATABASE_URL (or BENCH_DATABASE_URL) to a PostgreSQL it may create a database in\n');
  process.exit(1);
}

const scratch = await createScratchPostgres(adminUrl);
const handle = await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 2 });
try {
  const db = handle.db;
  const seeded = performance.now();
  await db.execute(sql`
    insert into threads (channel_id, thread_ts, engaged)
    select 'C0CH' || lpad((i % 40)::text, 3, '0'), (1700000000 + i)::text || '.000100', true from generate_series(1, 20000) i`);
  await db.execute(sql`
    insert into runs (thread_id, trigger_ts, trigger_user_id, channel_id, status, model, iterations, input_tokens, output_tokens, cost_usd, question, created_at, started_at, finished_at)
    select t.id, (1700000000 + i)::text || '.000200', 'U0USER' || lpad((i % 400)::text, 3, '0'), t.channel_id,
      (array['done','done','done','done','done','done','done','failed','cancelled','refused'])[1 + i % 10],
      (array['gpt-5-mini','gpt-4o-mini','gpt-4.1','gpt-5'])[1 + i % 4], 1 + i % 5, 1000 + i % 9000, 50 + i % 500, (1000 + i % 9000) * 0.00000025,
      'question number ' || i, now() - ((${RUNS} - i) * interval '51.84 seconds'), now() - ((${RUNS} - i) * interval '51.84 seconds'),
      now() - ((${RUNS} - i) * interval '51.84 seconds') + interval '4 seconds'
    from generate_series(1, ${RUNS}) i join threads t on t.id = 1 + i % 20000`);
  await db.execute(sql`
    insert into feedback (run_id, user_id, value)
    select id, 'U0FAN' || (id % 3), (array['positive','negative'])[1 + id % 2]::text from runs where id % 7 = 0`);
  await db.execute(sql`analyze`);
  const count = rowsOf<{ n: string }>(await db.execute(sql`select count(*) as n from runs`))[0]!.n;
  process.stdout.write(`seeded ${count} runs over 60 days in ${Math.round(performance.now() - seeded)} ms (PostgreSQL ${rowsOf<{ server_version: string }>(await db.execute(sql`show server_version`))[0]!.server_version})\n\n`);

  const cursorRow = rowsOf<{ at: string; id: string }>(
    await db.execute(sql`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id from runs order by created_at desc, id desc offset 2500 limit 1`),
  )[0]!;
  const today = new Date().toISOString().slice(0, 10);
  const twoWeeksAgo = new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10);
  const cases: Array<[string, (db: Database) => Promise<unknown>]> = [
    ['Runs, first page (50)', (d) => listRuns(d, {}, { limit: 50 })],
    ['Runs, page 51 (keyset cursor)', (d) => listRuns(d, {}, { after: { createdAt: cursorRow.at, id: Number(cursorRow.id) }, limit: 50 })],
    ['Runs, one channel', (d) => listRuns(d, { channelId: 'C0CH007' }, { limit: 50 })],
    ['Runs, one user', (d) => listRuns(d, { userId: 'U0USER042' }, { limit: 50 })],
    ['Runs, status failed', (d) => listRuns(d, { status: 'failed' }, { limit: 50 })],
    ['Runs, model + one day', (d) => listRuns(d, { model: 'gpt-4.1', from: today, to: today }, { limit: 50 })],
    ['Usage per day, 14 days', (d) => readUsage(d, 'day', { from: twoWeeksAgo, to: today })],
    ['Usage per channel, 14 days', (d) => readUsage(d, 'channel', { from: twoWeeksAgo, to: today })],
    ['Usage totals, today', (d) => readUsageTotals(d, { from: today, to: today })],
    ['Top spenders today', (d) => readTopSpendersToday(d)],
    ["Intake: today's spend (2 users, 2 channels)", (d) => readTodaysSpend(d, { userIds: ['U0USER001', 'U0USER002'], channelIds: ['C0CH001', 'C0CH002'] })],
    ['Live: runs in progress', (d) => listRunsInProgress(d)],
    ['Health: queue state', (d) => readQueueState(d)],
  ];
  for (const [label, run] of cases) {
    await run(db); // warm
    const plans: string[] = [];
    const explaining = new Proxy(db, {
      get(target, key) {
        if (key !== 'execute') return Reflect.get(target, key);
        return async (query: SQL) => {
          plans.push(rowsOf<Record<string, string>>(await target.execute(sql`explain (analyze, buffers) ${query}`)).map((row) => row['QUERY PLAN']).join('\n'));
          return [];
        };
      },
    }) as Database;
    await run(explaining);
    const plan = plans.join('\n');
    const executed = [...plan.matchAll(/Execution Time: ([\d.]+) ms/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    const indexes = [...new Set([...plan.matchAll(/(?:Index|Index Only|Bitmap Index) Scan(?: Backward)? (?:using|on) (\w+)/g)].map((m) => m[1]))];
    const seqScans = [...new Set([...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]))];
    process.stdout.write(`${label.padEnd(46)} ${executed.toFixed(2).padStart(8)} ms  indexes: ${indexes.join(', ') || '—'}${seqScans.length ? `  seq scan: ${seqScans.join(', ')}` : ''}\n`);
    if (process.env.VERBOSE) process.stdout.write(`${plan}\n\n`);
  }
} finally {
  await handle.close();
  await scratch.drop();
}
