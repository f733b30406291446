/**
 * Scheduled tasks: 1,000 tasks due at the same instant (the hardest case of "due within the same 5 minutes"), and
 * the database's load while 10,000 tasks wait with none due.
 *
 * What runs, honestly: not the whole bot. A scheduler (createTaskScheduler) and a run worker (createRunWorker, the
 * shipped claim/lease machinery, 16 runs at once) per replica: one replica on the embedded database (PGlite, in
 * memory; it belongs to one process), or two on a scratch PostgreSQL with BENCH_DATABASE_URL, each with its own pool
 * and owner id. Each occurrence's run row is written by the real
 * `insertOccurrenceRuns` in the claim's (batch's) transaction; the executor stands in for the model and Slack — it "posts" by
 * noting the time and waiting 5 ms — so the figure is the scheduling path's delay (due → claimed → run row →
 * worker → posted), not a model's answer time. The delay uses the system clock; the run ends with the scheduler's
 * recordOccurrenceResult, as in the bot.
 *
 * The idle figure counts every statement the scheduler sends while 10,000 active tasks are due tomorrow, over ten
 * minutes of a test clock (the scheduler's timers only; nothing else is running): the version check every 30 s.
 */
import { loadavg } from 'node:os';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/app/database/open-database';
import { createActivity } from '../src/core/activity';
import { systemClock } from '../src/core/clock';
import { createLogger } from '../src/logging/logger';
import { createRunWorker } from '../src/runs/run-worker';
import type { Database, DatabaseHandle } from '../src/store/database';
import { createScratchPostgres } from '../test/support/databases';
import { rowsOf } from '../src/store/database';
import { scheduledTasks } from '../src/store/schema';
import { insertOccurrenceRuns, parseOccurrenceTrigger } from '../src/tasks/occurrence-run';
import { createTaskScheduler, type TaskScheduler } from '../src/tasks/scheduler';
import { createFakeClock } from '../test/support/test-clock';
import type { BenchFigure, BenchSuite } from './figures';
import { countingDatabase } from '../test/tasks/counting-database';

const DUE_TASKS = 1_000;
const IDLE_TASKS = 10_000;
const IDLE_MINUTES = 10;
const REPLICAS = 2;
const CONCURRENCY = 16;
const POST_MS = 5;

export const tasksSuite: BenchSuite = {
  name: 'tasks',
  async run() {
    const burst = await dueBurst();
    const idle = await idleLoad();
    const load = `load average ${loadavg()[0]!.toFixed(1)} on this shared machine`;
    return [
      {
        key: 'tasks.due_to_posted_p99_ms',
        value: Math.round(burst.p99),
        unit: 'ms',
        target: '< 10000',
        note: `${DUE_TASKS} tasks due at one instant, ${burst.replicas} scheduler(s) + worker(s) (${CONCURRENCY} runs at once each) stand-in executor (${POST_MS} ms "post"), ${burst.database}; every occurrence claimed (its run row written) within ${Math.round(burst.lastClaimed)} ms of due; median ${Math.round(burst.p50)} ms, last posted ${Math.round(burst.max)} ms after due; ${load}`,
      },
      { key: 'tasks.occurrences_run', value: burst.run, unit: 'occurrences', target: `= ${DUE_TASKS}`, note: 'distinct tasks whose occurrence was executed' },
      { key: 'tasks.duplicate_occurrences', value: burst.duplicates, unit: 'occurrences', target: '= 0', note: 'executions beyond one per (task, due time), and occurrence rows beyond one per task' },
      {
        key: 'tasks.idle_queries_per_minute',
        value: idle,
        unit: 'queries/min',
        target: '≤ 2',
        note: `one replica's scheduler, ${IDLE_TASKS.toLocaleString('en-US')} active tasks due tomorrow, ${IDLE_MINUTES} minutes of a test clock, every statement counted`,
      },
    ] satisfies BenchFigure[];
  },
};

const quiet = () => createLogger({ level: 'error', secrets: [], write: () => {} });

async function insertTasks(db: Database, count: number, dueAt: Date): Promise<void> {
  for (let start = 0; start < count; start += 500) {
    const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => ({
      teamId: 'T0BENCH',
      channelId: 'C0BENCH',
      threadTs: `1700000000.${String(start + i).padStart(6, '0')}`,
      ownerId: `U0BENCH${(start + i) % 50}`,
      prompt: `bench task ${start + i}`,
      scheduleKind: 'once' as const,
      schedule: '2026-01-01T09:00',
      timeZone: 'UTC',
      nextDueAt: dueAt,
      state: 'active' as const,
      changedBy: 'bench',
      createdAt: new Date(),
      updatedAt: new Date(),
    }));
    await db.insert(scheduledTasks).values(rows);
  }
  await db.execute(sql`insert into scheduled_tasks_version (id, version) values (1, 1) on conflict (id) do update set version = scheduled_tasks_version.version + 1`);
}

/** The embedded database (one replica); with BENCH_DATABASE_URL, a scratch PostgreSQL with two replicas, a pool each. */
async function openReplicaDatabases(): Promise<{ label: string; handles: DatabaseHandle[]; close(): Promise<void> }> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) {
    // The embedded database belongs to one process (DATA_DIR is locked): one replica, as it is deployed.
    const handle = await openDatabase({ driver: 'pglite' });
    return { label: 'PGlite', handles: [handle], close: () => handle.close() };
  }
  const scratch = await createScratchPostgres(url);
  const handles: DatabaseHandle[] = [];
  for (let i = 0; i < REPLICAS; i++) handles.push(await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 4 }));
  return {
    label: 'PostgreSQL',
    handles,
    close: async () => {
      for (const handle of handles) await handle.close();
      await scratch.drop();
    },
  };
}

async function dueBurst() {
  const databases = await openReplicaDatabases();
  const db = databases.handles[0]!.db;
  try {
    const dueAt = new Date(Date.now() + 3_000);
    await insertTasks(db, DUE_TASKS, dueAt);
    const executed = new Map<number, number>();
    const delays: number[] = [];
    const claimDelays: number[] = [];
    const schedulers: TaskScheduler[] = [];
    const workers = Array.from({ length: databases.handles.length }, (_, replica) => {
      const replicaDb = databases.handles[replica]!.db;
      const worker = createRunWorker({
        db: replicaDb,
        owner: `bench-${replica}`,
        logger: quiet(),
        leaseMs: 60_000,
        pollMs: 2_000,
        concurrency: CONCURRENCY,
        clock: systemClock,
        activity: createActivity(),
        async execute(run) {
          const trigger = parseOccurrenceTrigger(run.triggerTs)!;
          executed.set(trigger.taskId, (executed.get(trigger.taskId) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, POST_MS));
          delays.push(Date.now() - trigger.dueAt.getTime());
          await schedulers[replica]!.recordOccurrenceResult(trigger.taskId, 'ok', { runId: run.id });
          return { status: 'done', answerTs: [`${Date.now() / 1000}`] };
        },
      });
      schedulers.push(
        createTaskScheduler({
          db: replicaDb,
          clock: systemClock,
          claimConcurrency: databases.label === 'PGlite' ? 1 : 4,
          owner: `bench-${replica}`,
          logger: quiet(),
          enqueueOccurrences: insertOccurrenceRuns,
          onClaimed: (occurrence) => {
            claimDelays.push(Date.now() - occurrence.dueAt.getTime());
            worker.wake();
          },
        }),
      );
      return worker;
    });
    workers.forEach((worker) => worker.start());
    schedulers.forEach((scheduler) => scheduler.start());
    const deadline = Date.now() + 5 * 60_000;
    while (delays.length < DUE_TASKS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    // Anything more that would run (a duplicate) would show by now: every scheduler idle, every worker polled once more.
    await Promise.all(schedulers.map((scheduler) => scheduler.idle()));
    await Promise.all(workers.map((worker) => worker.poll()));
    await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    await Promise.all(workers.map((worker) => worker.stop(10_000)));
    const [rows] = rowsOf<{ occurrences: number; tasks: number }>(
      await db.execute(sql`select count(*)::int as occurrences, count(distinct task_id)::int as tasks from task_occurrences`),
    );
    const extraExecutions = [...executed.values()].reduce((sum, n) => sum + n - 1, 0);
    const sorted = [...delays].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
    const claims = [...claimDelays].sort((a, b) => a - b);
    return {
      database: databases.label,
      replicas: databases.handles.length,
      lastClaimed: claims.at(-1) ?? Number.NaN,
      p50: at(0.5),
      p99: at(0.99),
      max: sorted.at(-1) ?? Number.NaN,
      run: executed.size,
      duplicates: extraExecutions + (Number(rows!.occurrences) - Number(rows!.tasks)),
    };
  } finally {
    await databases.close();
  }
}

async function idleLoad(): Promise<number> {
  const database = await openDatabase({ driver: 'pglite' });
  try {
    const clock = createFakeClock(Date.now());
    await insertTasks(database.db, IDLE_TASKS, new Date(clock.now() + 24 * 60 * 60_000));
    const counted = countingDatabase(database.db);
    const scheduler = createTaskScheduler({ db: counted.db, clock, owner: 'bench-idle', logger: quiet(), enqueueOccurrences: insertOccurrenceRuns });
    scheduler.start();
    await scheduler.idle();
    const before = counted.count(); // the start's one full look
    for (let second = 0; second < IDLE_MINUTES * 60; second += 5) {
      clock.advance(5_000);
      await scheduler.idle();
    }
    await scheduler.stop();
    return (counted.count() - before) / IDLE_MINUTES;
  } finally {
    await database.close();
  }
}
