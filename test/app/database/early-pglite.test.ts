/**
 * main.ts starts the embedded database's work before the app's modules load — opening an existing one, or unpacking
 * the template for a first start — and openDatabase takes it over. A first start's database is still created (renamed
 * into place) only by openDatabase, after the checks that come first; one another process holds is still refused
 * there with the sentence naming the holder. (That a start which fails its checks leaves no DATA_DIR behind is
 * test/config/start-up-stages.test.ts's, with the real process.)
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError } from '../../../src/app/database/data-dir-lock';
import { openEmbeddedDatabaseEarly, takeEarlyPglite } from '../../../src/app/database/early-pglite';
import { openDatabase } from '../../../src/app/database/open-database';

describe('opening the embedded database early', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'threadwise-early-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('on a first start unpacks the template beside the database, which openDatabase then creates from it', async () => {
    const fresh = path.join(dir, 'fresh');
    openEmbeddedDatabaseEarly(fresh);
    // Held, and not yet a database: only the staging folder exists until openDatabase (after start-up's checks).
    expect(JSON.parse(readFileSync(path.join(fresh, 'pglite.lock'), 'utf8')).pid).toBe(process.pid);
    expect(existsSync(path.join(fresh, 'pglite', 'PG_VERSION'))).toBe(false);
    const said: string[] = [];
    const created = await openDatabase({ driver: 'pglite', dataDir: fresh }, (sentence) => said.push(sentence));
    expect(said).toEqual([`creating the embedded database in ${fresh} (first start, ~1 s)…`]);
    expect(existsSync(path.join(fresh, 'pglite', 'PG_VERSION'))).toBe(true);
    expect(existsSync(path.join(fresh, 'pglite.creating'))).toBe(false);
    await created.db.execute(sql`select count(*) from runs`);
    await created.close();
    expect(existsSync(path.join(fresh, 'pglite.lock'))).toBe(false);
  }, 120_000);

  it('starts an existing database under the lock, and openDatabase takes it over with its data', async () => {
    const created = await openDatabase({ driver: 'pglite', dataDir: dir });
    await created.db.execute(sql`create table early_marker (note text)`);
    await created.db.execute(sql`insert into early_marker values ('written before the restart')`);
    await created.close();

    openEmbeddedDatabaseEarly(dir);
    // Held from the moment the thread starts: another process opening it now is refused.
    expect(JSON.parse(readFileSync(path.join(dir, 'pglite.lock'), 'utf8')).pid).toBe(process.pid);

    const reopened = await openDatabase({ driver: 'pglite', dataDir: dir });
    const rows = await reopened.db.execute(sql`select note from early_marker`);
    expect(JSON.stringify(rows)).toContain('written before the restart');
    // Handed over once: a second open does not get the same thread.
    expect(takeEarlyPglite(path.resolve(dir))).toBeUndefined();
    await reopened.close();
    expect(existsSync(path.join(dir, 'pglite.lock'))).toBe(false);
  }, 120_000);

  it('leaves a database another process holds to openDatabase, which names the holder', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await writeFile(path.join(dir, 'pglite.lock'), JSON.stringify({ pid: other.pid, host: hostname(), command: 'dist/main.mjs' }));
      openEmbeddedDatabaseEarly(dir);
      expect(takeEarlyPglite(path.resolve(dir))).toBeUndefined();
      await expect(openDatabase({ driver: 'pglite', dataDir: dir })).rejects.toThrow(DataDirInUseError);
      await expect(openDatabase({ driver: 'pglite', dataDir: dir })).rejects.toThrow(`open in another process (pid ${other.pid}: dist/main.mjs)`);
    } finally {
      other.kill();
      await rm(path.join(dir, 'pglite.lock'), { force: true });
    }
  });
});
