/**
 * The embedded database started ahead of need: main.ts calls openEmbeddedDatabaseEarly before it loads the app, so
 * the database's second or two of start-up work happens on threads of their own while the app's modules load, and
 * openDatabase takes it over:
 *   - an existing database: PGlite's thread starts opening it;
 *   - a first start: the shipped template is unpacked into a staging folder (40 MB of files). The database is only
 *     created — renamed into place — by openDatabase, after the checks that must come first (the port, Slack, the
 *     model); a start that ends before leaves nothing behind, not even a DATA_DIR it made.
 * Kept apart from open-database.ts so that main.ts loads only this (node's own modules and the lock) first.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { messageOf } from '../../core/errors';
import { lockDataDir } from './data-dir-lock';
import { startPgliteThread, type PgliteThread } from './pglite-in-worker';
import { stagingFolderFor, TEMPLATE_FILE, templateUsable } from './pglite-template';

type EarlyPglite =
  | { dataDir: string; unlock: () => void; kind: 'opening'; thread: Promise<PgliteThread> }
  | { dataDir: string; unlock: () => void; kind: 'unpacking'; unpacked: Promise<void> };

let early: EarlyPglite | undefined;

/**
 * Starts what can start now for the embedded database in `dataDir`. Nothing for a DATA_DIR another process holds (or
 * one that cannot be written): openDatabase reports that in its own words.
 */
export function openEmbeddedDatabaseEarly(dataDir: string): void {
  if (early) return;
  const resolved = path.resolve(dataDir);
  const pgliteDir = path.join(resolved, 'pglite');
  if (existsSync(path.join(pgliteDir, 'PG_VERSION'))) {
    const unlock = tryLock(resolved);
    if (!unlock) return;
    // A start that ends before openDatabase (a port in use, a refused token) leaves no lock behind.
    process.once('exit', unlock);
    const thread = startPgliteThread(pgliteDir);
    thread.catch(() => {}); // reported by openDatabase, which awaits it
    early = { dataDir: resolved, unlock, kind: 'opening', thread };
    return;
  }
  if (existsSync(pgliteDir) && readdirSync(pgliteDir).length > 0) return; // not ours to touch: openDatabase says why
  if (!templateUsable()) return;
  const madeDataDir = !existsSync(resolved);
  try {
    mkdirSync(resolved, { recursive: true });
  } catch {
    return;
  }
  const unlock = tryLock(resolved);
  if (!unlock) return;
  const staging = stagingFolderFor(pgliteDir);
  const { unpacked, stopUnpacking } = unpackOnThread(staging);
  unpacked.catch(() => {}); // reported by openDatabase, which awaits it
  const entry: EarlyPglite = { dataDir: resolved, unlock, kind: 'unpacking', unpacked };
  early = entry;
  process.once('exit', () => {
    unlock();
    if (early !== entry) return; // taken over: the database is openDatabase's now
    // Never taken over: the start ended before the database was to be created. Leave nothing behind; the thread
    // may still be writing there, so it stops (removing what it wrote) before the folder is removed here.
    stopUnpacking();
    try {
      rmSync(staging, { recursive: true, force: true });
    } catch {
      // the thread did not stop in time: PGlite will not take a staging folder, and the next start replaces it
    }
    if (madeDataDir) {
      try {
        rmdirSync(resolved);
      } catch {
        // something else was written there meanwhile (the delivery journal): keep it
      }
    }
  });
}

/** What was started early for this DATA_DIR (resolved), handed over once; undefined when nothing was. */
export function takeEarlyPglite(dataDir: string): EarlyPglite | undefined {
  if (!early || early.dataDir !== dataDir) return undefined;
  const taken = early;
  early = undefined;
  return taken;
}

function tryLock(dataDir: string): (() => void) | undefined {
  try {
    return lockDataDir(dataDir);
  } catch {
    return undefined;
  }
}

/** How long an exiting process waits for the unpacking thread to stop writing: it checks before every file. */
const STOP_WAIT_MS = 2_000;

/**
 * The template unpacked on a thread of its own. `stopUnpacking` (synchronous: it runs in an 'exit' handler) asks
 * the thread to stop and waits until it writes nothing more.
 */
function unpackOnThread(staging: string): { unpacked: Promise<void>; stopUnpacking: () => void } {
  const signals = new Int32Array(new SharedArrayBuffer(8)); // [0] stop asked, [1] the thread is done writing
  let started = false;
  const unpacked = new Promise<void>((resolve, reject) => {
    const thread = new Worker(new URL('./unpack-template-thread.mjs', import.meta.url), {
      workerData: { templateFile: TEMPLATE_FILE, staging, signals: signals.buffer },
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    started = true;
    thread.once('message', (reply: { ok: boolean; message?: string }) => (reply.ok ? resolve() : reject(new Error(reply.message))));
    thread.once('error', (error) => {
      Atomics.store(signals, 1, 1); // it writes nothing more
      reject(new Error(`the thread unpacking the database template failed: ${messageOf(error)}`));
    });
    thread.once('exit', (code) => {
      Atomics.store(signals, 1, 1);
      reject(new Error(`the thread unpacking the database template ended (exit code ${code})`));
    });
  });
  const stopUnpacking = () => {
    if (!started) return;
    Atomics.store(signals, 0, 1);
    Atomics.wait(signals, 1, 0, STOP_WAIT_MS);
  };
  return { unpacked, stopUnpacking };
}
