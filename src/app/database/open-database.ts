/**
 * The only module that connects to a database (the drivers are the composition root's to construct). Same schema, same queries, two drivers:
 * no DATABASE_URL → embedded PGlite in DATA_DIR, on a thread of its own; DATABASE_URL → PostgreSQL through postgres.js.
 */
import { mkdir } from 'node:fs/promises';
import { once } from 'node:events';
import { MessageChannel, Worker } from 'node:worker_threads';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { PGlite } from '@electric-sql/pglite';
import * as schema from '../../store/schema';
import type { Database, DatabaseHandle, DatabaseLocation } from '../../store/database';
import { lockDataDir } from './data-dir-lock';
import { startPgliteThread } from './pglite-in-worker';

const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));

/** Arbitrary constant: serialises migrations when several replicas start at once on one PostgreSQL. */
const MIGRATION_LOCK_KEY = 7_412_003_001;

export async function openDatabase(location: DatabaseLocation): Promise<DatabaseHandle> {
  return location.driver === 'postgres'
    ? openPostgres(location.url, location.maxConnections)
    : openPglite(location.dataDir);
}

async function openPglite(dataDir: string | undefined): Promise<DatabaseHandle> {
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  let dir: string | undefined;
  let unlock = () => {};
  if (dataDir) {
    dir = path.resolve(dataDir, 'pglite');
    await mkdir(dir, { recursive: true });
    unlock = lockDataDir(path.resolve(dataDir));
  }
  let thread: Awaited<ReturnType<typeof startPgliteThread>>;
  try {
    thread = await startPgliteThread(dir);
  } catch (error) {
    unlock();
    throw error;
  }
  const db = drizzle(thread.client as unknown as PGlite, { schema });
  try {
    await migrate(db, { migrationsFolder });
  } catch (error) {
    await thread.close();
    unlock();
    throw error;
  }
  return {
    db: db as unknown as Database,
    driver: 'pglite',
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    openQueryPort: () => thread.openPort(),
    close: async () => {
      await thread.close();
      unlock();
    },
  };
}

async function openPostgres(url: string, maxConnections = 10): Promise<DatabaseHandle> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  // One connection (max: 1), so the session-level advisory lock and the migration share it.
  const migrator = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await migrator`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migrate(drizzle(migrator), { migrationsFolder });
  } finally {
    await migrator.end({ timeout: 1 });
  }
  const client = postgres(url, {
    max: maxConnections,
    onnotice: () => {},
    connect_timeout: 10,
    idle_timeout: 30,
    // postgres.js delays a connection's next attempt by 3^failures/100 s (up to 20 s), counting failures across the
    // pool: after a database blip of a few seconds, the queries that landed on such a connection waited up to 20 s
    // more (the health check among them). Our own layers back off already (intake, worker polls); keep this to 1 s.
    backoff: (failures: number) => Math.min(0.05 * 2 ** failures, 1),
  });
  const db = drizzle(client, { schema });
  let portThread: Worker | undefined;
  return {
    db: db as unknown as Database,
    driver: 'postgres',
    ping: async () => {
      await client`select 1`;
    },
    openQueryPort() {
      // A small pool of its own on a thread of its own: the receiver records deliveries without the main thread.
      portThread ??= new Worker(new URL('./postgres-port-thread.mjs', import.meta.url), { workerData: { url } });
      const { port1, port2 } = new MessageChannel();
      portThread.postMessage({ op: 'attach', port: port2 }, [port2]);
      return port1;
    },
    async close() {
      const closing = portThread;
      portThread = undefined;
      if (closing) {
        closing.postMessage({ op: 'close' });
        await Promise.race([once(closing, 'message'), new Promise((resolve) => setTimeout(resolve, 3_000).unref())]);
        await closing.terminate();
      }
      await client.end({ timeout: 5 });
    },
  };
}
