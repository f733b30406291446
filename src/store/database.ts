/**
 * The database as the stores see it: one drizzle interface over two drivers (embedded PGlite, or PostgreSQL through
 * postgres.js), opened by the composition root (app/database/).
 */
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { MessagePort } from 'node:worker_threads';
import type * as schema from './schema';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  db: Database;
  driver: 'pglite' | 'postgres';
  /** Resolves when the database answers a trivial query; rejects otherwise. For /healthz. */
  ping(): Promise<void>;
  /**
   * A port another thread (the HTTP receiver's) can send `{ id, op: 'query', sql, params }` to, answered
   * `{ id, ok, error? }` without the main thread: how deliveries are recorded before Slack gets its 200.
   */
  openQueryPort?(): MessagePort;
  /**
   * The embedded database's DATA_DIR, locked by this process while the handle is open. Files written beside the
   * database (the receiver's journal of deliveries) belong there and nowhere else: no other live process can read
   * them as a stopped one's leftovers. Undefined for PostgreSQL and for an in-memory database.
   */
  dataDir?: string;
  close(): Promise<void>;
}

export type DatabaseLocation =
  | {
      driver: 'postgres';
      url: string;
      maxConnections?: number;
      /** A statement (and a server gone silent) is given up after this; default 30 s. */
      statementTimeoutMs?: number;
      /** Connecting (TCP, TLS, login) is given up after this; default 10 s. */
      connectTimeoutSeconds?: number;
    }
  /** `dataDir` undefined → in memory (tests). */
  | { driver: 'pglite'; dataDir?: string };

/** Rows of a raw `db.execute()` result: postgres.js returns an array, PGlite an object with `rows`. */
export function rowsOf<Row>(result: unknown): Row[] {
  if (Array.isArray(result)) return result as Row[];
  return ((result as { rows?: Row[] }).rows ?? []) as Row[];
}
