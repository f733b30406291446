/**
 * Storage tests run on every driver: PGlite in memory always, and real PostgreSQL when TEST_DATABASE_URL is set
 * (CI sets it). Each PostgreSQL suite gets a database of its own, so test files can run in parallel.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';

export interface TestDatabase {
  label: 'pglite' | 'postgres';
  open(): Promise<DatabaseHandle>;
}

export function testDatabases(): TestDatabase[] {
  const list: TestDatabase[] = [{ label: 'pglite', open: () => openDatabase({ driver: 'pglite' }) }];
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) list.push({ label: 'postgres', open: () => openScratchPostgres(adminUrl) });
  return list;
}

/** A fresh PostgreSQL database, dropped when the handle closes. Also used by multi-process tests. */
export async function createScratchPostgres(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `threadwise_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

async function openScratchPostgres(adminUrl: string): Promise<DatabaseHandle> {
  const scratch = await createScratchPostgres(adminUrl);
  const handle = await openDatabase({ driver: 'postgres', url: scratch.url, maxConnections: 4 });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await scratch.drop();
    },
  };
}
