/**
 * One process at a time on an embedded database: PGlite has no lock of its own (its postmaster.pid names no real
 * process), and two processes writing one data folder corrupt it. `npm start` and `npm run chat` default to the
 * same ./data, so the second one to open it is refused with a sentence saying which process holds it. A lock left
 * by a process that died (kill -9, power cut) is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { codeOf, ThreadwiseError, type ThreadwiseErrorOptions } from '../../core/errors';

export class DataDirInUseError extends ThreadwiseError<'data_dir_in_use'> {
  override readonly name = 'DataDirInUseError';
  constructor(message: string, options?: ThreadwiseErrorOptions) {
    super('data_dir_in_use', message, options);
  }
}

/**
 * Takes the lock on the embedded database in DATA_DIR `dir` for this process (a file beside the database, not in
 * it); returns its release. Throws DataDirInUseError when a live process holds it.
 */
export function lockDataDir(dir: string): () => void {
  const file = path.join(dir, 'pglite.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), command: process.argv.slice(1).join(' ') }));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(file);
        } catch {
          // already gone: nothing to release
        }
      };
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
    }
    const holder = readHolder(file);
    if (holder && holder.host === hostname() && holder.pid !== process.pid && isAlive(holder.pid)) {
      throw new DataDirInUseError(
        `the embedded database in ${dir} is open in another process (pid ${holder.pid}${holder.command ? `: ${holder.command}` : ''}); it allows one process at a time. Stop that one, give this one its own DATA_DIR, or use DATABASE_URL.`,
        { context: { dir, pid: holder.pid } },
      );
    }
    // A stale lock (its process is gone, or it is unreadable): take it over.
    try {
      unlinkSync(file);
    } catch {
      // another process took it over first; the next attempt sees who
    }
  }
  throw new DataDirInUseError(`could not take the lock on the embedded database in ${dir}; try again.`, { context: { dir } });
}

function readHolder(file: string): { pid: number; host: string; command?: string } | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown; host?: unknown; command?: unknown };
    if (typeof holder.pid !== 'number' || typeof holder.host !== 'string') return undefined;
    return { pid: holder.pid, host: holder.host, command: typeof holder.command === 'string' ? holder.command : undefined };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
}
