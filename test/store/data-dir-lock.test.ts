/**
 * One process at a time on an embedded database: a second process opening the same DATA_DIR (npm run chat beside
 * npm start) is refused with a sentence naming the holder, and a lock left by a dead process is taken over.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from '../../src/app/database/data-dir-lock';
import { openDatabase } from '../../src/app/database/open-database';

describe('the embedded database lock', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'threadwise-lock-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is held while the database is open and released when it closes', async () => {
    const handle = await openDatabase({ driver: 'pglite', dataDir: dir });
    expect(existsSync(path.join(dir, 'pglite.lock'))).toBe(true);
    await handle.close();
    expect(existsSync(path.join(dir, 'pglite.lock'))).toBe(false);
  }, 60_000);

  it('refuses while another live process holds it, naming the process', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await writeFile(path.join(dir, 'pglite.lock'), JSON.stringify({ pid: other.pid, host: hostname(), command: 'src/main.ts' }));
      expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
      expect(() => lockDataDir(dir)).toThrow(`the embedded database in ${dir} is open in another process (pid ${other.pid}: src/main.ts)`);
    } finally {
      other.kill();
    }
  });

  it('takes over a lock whose process is gone', async () => {
    const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => gone.on('exit', resolve));
    await writeFile(path.join(dir, 'pglite.lock'), JSON.stringify({ pid: gone.pid, host: hostname() }));
    const release = lockDataDir(dir);
    expect(JSON.parse(readFileSync(path.join(dir, 'pglite.lock'), 'utf8')).pid).toBe(process.pid);
    release();
    expect(existsSync(path.join(dir, 'pglite.lock'))).toBe(false);
  });
});
