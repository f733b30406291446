/**
 * The only module that connects to a database (the drivers are the composition root's to construct). Same schema, same queries, two drivers:
 * no DATABASE_URL → embedded PGlite in DATA_DIR, on a thread of its own; DATABASE_URL → PostgreSQL through postgres.js.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { once } from 'node:events';
import { MessageChannel, Worker } from 'node:worker_threads';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { PGlite } from '@electric-sql/pglite';
import * as schema from '../../store/schema';
import type { Database, DatabaseHandle, DatabaseLocation } from '../../store/database';
import { lockDataDir } from './data-dir-lock';
import { takeEarlyPglite } from './early-pglite';
import { startPgliteThread, type PgliteThread } from './pglite-in-worker';
import { createFromTemplate, templateUsable } from './pglite-template';

const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));

/** Arbitrary constant: serialises migrations when several replicas start at once on one PostgreSQL. */
const MIGRATION_LOCK_KEY = 7_412_003_001;

/** A start-up line for the person starting threadwise: which database, and whether it is being created. */
export type SayProgress = (sentence: string) => void;

export async function openDatabase(location: DatabaseLocation, say?: SayProgress): Promise<DatabaseHandle> {
  return location.driver === 'postgres' ? openPostgres(location) : openPglite(location.dataDir, say);
}

async function openPglite(dataDir: string | undefined, say?: SayProgress): Promise<DatabaseHandle> {
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  let dir: string | undefined;
  let unlock = () => {};
  const lockedDataDir = dataDir ? path.resolve(dataDir) : undefined;
  const started = lockedDataDir ? takeEarlyPglite(lockedDataDir) : undefined;
  if (lockedDataDir) {
    dir = path.join(lockedDataDir, 'pglite');
    if (started) unlock = started.unlock;
    else {
      await mkdir(dir, { recursive: true });
      unlock = lockDataDir(lockedDataDir);
    }
  }
  let thread: PgliteThread;
  try {
    if (started?.kind === 'opening') {
      say?.(`opening the embedded database in ${dataDir}…`);
      thread = await started.thread;
    } else {
      if (started?.kind === 'unpacking') await mkdir(dir!, { recursive: true });
      if (dir && dataDir && !existsSync(path.join(dir, 'PG_VERSION'))) await createPglite(dir, dataDir, say, started?.kind === 'unpacking' ? started.unpacked : undefined);
      else if (dataDir) say?.(`opening the embedded database in ${dataDir}…`);
      thread = await startPgliteThread(dir);
    }
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
    ...(lockedDataDir ? { dataDir: lockedDataDir } : {}),
    close: async () => {
      await thread.close();
      unlock();
    },
  };
}

/**
 * A fresh DATA_DIR: a copy of the shipped template when this PGlite can read it (about a second), else PGlite's own
 * initdb when the thread opens it (5–15 s of CPU).
 */
async function createPglite(dir: string, shown: string, say?: SayProgress, unpacked?: Promise<void>): Promise<void> {
  if (unpacked || templateUsable()) {
    say?.(`creating the embedded database in ${shown} (first start, ~1 s)…`);
    try {
      await createFromTemplate(dir, unpacked);
      return;
    } catch (error) {
      say?.(`could not copy the database template (${error instanceof Error ? error.message : String(error)}); creating it from scratch instead (~15 s)…`);
      await mkdir(dir, { recursive: true });
      return;
    }
  }
  say?.(`creating the embedded database in ${shown} (first start, ~15 s)…`);
}

/** Defaults for a server that stops answering: a query waits this long at most, then its connection is dropped. */
const STATEMENT_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_SECONDS = 10;

async function openPostgres(location: Extract<DatabaseLocation, { driver: 'postgres' }>): Promise<DatabaseHandle> {
  const { url, maxConnections = 10 } = location;
  const statementTimeoutMs = location.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const connectTimeout = location.connectTimeoutSeconds ?? CONNECT_TIMEOUT_SECONDS;
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  // One connection (max: 1), so the session-level advisory lock and the migration share it. No statement or
  // inactivity timeout here: waiting for another replica's migration is silence too.
  const migrator = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: connectTimeout, fetch_types: false });
  try {
    await migrator`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migrate(drizzle(migrator), { migrationsFolder });
  } finally {
    await migrator.end({ timeout: 5 });
  }
  const socket = socketFactory(url, statementTimeoutMs);
  const client = postgres(url, {
    max: maxConnections,
    onnotice: () => {},
    connect_timeout: connectTimeout,
    // Closed before the socket's inactivity timeout below would drop them: an idle connection is not a dead one.
    idle_timeout: Math.max(1, Math.floor(statementTimeoutMs / 2000)),
    // The server gives up on a statement (or a transaction left idle) after this; the socket below gives up on a
    // server that stopped answering altogether.
    connection: { statement_timeout: statementTimeoutMs, idle_in_transaction_session_timeout: statementTimeoutMs * 2 },
    ...(socket ? { socket } : {}),
    // postgres.js delays a connection's next attempt by 3^failures/100 s (up to 20 s), counting failures across the
    // pool: after a database blip of a few seconds, the queries that landed on such a connection waited up to 20 s
    // more (the health check among them). Our own layers back off already (intake, worker polls); keep this to 1 s.
    backoff: (failures: number) => Math.min(0.05 * 2 ** failures, 1),
    // postgres.js asks every new connection for the catalog's array types and drops that query's promise: a
    // connection refused or cut at that moment became an unhandled rejection, which ends a Node process
    // (porsager/postgres#1192, open). Off here and on the migrator: drizzle parses array columns from their text
    // form, and our own SQL reads arrays either way (rank-messages' parseArray).
    fetch_types: false,
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

/**
 * The connection's socket, with what postgres.js cannot set itself: TCP keepalive after 10 s idle (its own
 * `keep_alive` sets only that, and Linux then waits 75 s × 9 probes), and an inactivity timeout a little longer than
 * the server's statement_timeout. A healthy server answers or cancels within statement_timeout; a server that
 * accepted and went silent (half-open after a network partition, a hung proxy) gets its connection destroyed, and
 * the query fails with CONNECTION_CLOSED instead of hanging the run. Undefined for several hosts or a Unix socket,
 * where postgres.js's own connect logic is kept.
 */
function socketFactory(url: string, statementTimeoutMs: number) {
  let host: string;
  let port: number;
  try {
    const parsed = new URL(url);
    if (parsed.hostname === '' || parsed.host.includes(',') || parsed.searchParams.has('host')) return undefined;
    host = parsed.hostname.replace(/^\[|\]$/g, '');
    port = Number(parsed.port || 5432);
  } catch {
    return undefined;
  }
  const silenceMs = statementTimeoutMs + 5_000;
  // Handed over while still connecting, as postgres.js's own socket would be: it writes the start-up message into
  // the socket's buffer, and a refused or failed connection reaches its 'error'/'close' handlers, so the pool retries.
  // (A factory that rejects instead leaves postgres.js's connection stuck in "connecting" for good.)
  return (): Socket => {
    const socket = connect({ host, port });
    socket.setKeepAlive(true, 10_000);
    socket.setTimeout(silenceMs, () =>
      socket.destroy(
        Object.assign(new Error(`PostgreSQL at ${host}:${port} sent nothing for ${silenceMs / 1000} s; dropping the connection`), { code: 'ETIMEDOUT' }),
      ),
    );
    return socket;
  };
}
