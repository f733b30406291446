/**
 * The embedded database started ahead of need: main.ts calls openEmbeddedDatabaseEarly before it loads the app, so
 * PGlite's second of start-up on its own thread overlaps the second or two the app's modules take to load, and
 * openDatabase takes the thread over. Kept apart from open-database.ts so that main.ts loads only this (node's
 * own modules and the lock) before it starts the thread.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { lockDataDir } from './data-dir-lock';
import { startPgliteThread, type PgliteThread } from './pglite-in-worker';

interface EarlyPglite {
  /** DATA_DIR, resolved. */
  dataDir: string;
  unlock: () => void;
  thread: Promise<PgliteThread>;
}

let early: EarlyPglite | undefined;

/**
 * Starts opening the existing embedded database in `dataDir` now. Only a database that exists and that no other
 * process holds: a first start creates it later, after the checks that must come first (the port, Slack, the
 * model), and a held or missing one is left for openDatabase to report in its own words.
 */
export function openEmbeddedDatabaseEarly(dataDir: string): void {
  const resolved = path.resolve(dataDir);
  if (early || !existsSync(path.join(resolved, 'pglite', 'PG_VERSION'))) return;
  let unlock: () => void;
  try {
    unlock = lockDataDir(resolved);
  } catch {
    return;
  }
  // A start that ends before openDatabase (a port in use, a refused token) leaves no lock behind.
  process.once('exit', unlock);
  const thread = startPgliteThread(path.join(resolved, 'pglite'));
  thread.catch(() => {}); // reported by openDatabase, which awaits it
  early = { dataDir: resolved, unlock, thread };
}

/** The thread started early for this DATA_DIR (resolved), handed over once; undefined when there is none. */
export function takeEarlyPglite(dataDir: string): EarlyPglite | undefined {
  if (!early || early.dataDir !== dataDir) return undefined;
  const taken = early;
  early = undefined;
  return taken;
}
