/**
 * Creates the embedded database in a data directory, in a child process of its own (pglite-in-worker.ts starts
 * it with fork): `node pglite-initdb.mjs DATA_DIR`, one IPC reply { ok: true } or { ok: false, error }, then exit.
 *
 * Why a process and not a thread: initdb grows PGlite's WebAssembly memory to ~850 MB, and compiling and running it
 * leaves ~100 MB more in the allocator's arenas that a thread's end does not give back to the system (glibc keeps
 * freed memory for the next thread). A process's end gives everything back: the bot's RSS after a first start is
 * that of a reopened database (measured: 329 → 233 MB for the database's part after start, see the commit).
 */
import { PGlite } from '@electric-sql/pglite';
import { describeError, pgliteStartParams } from './pglite-options.mjs';

const dataDir = process.argv[2];
let reply;
try {
  if (!dataDir) throw new Error('pglite-initdb.mjs needs the data directory as its argument');
  const database = await PGlite.create(dataDir, { startParams: pgliteStartParams });
  await database.close();
  reply = { ok: true };
} catch (error) {
  reply = { ok: false, error: describeError(error) };
}
process.send(reply, () => process.disconnect());
