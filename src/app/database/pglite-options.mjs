/**
 * What the embedded database's thread (pglite-worker.mjs) and the child process that creates a database
 * (pglite-initdb.mjs) share. Plain JavaScript: both load without tsx.
 */
import { PGlite } from '@electric-sql/pglite';

// PostgreSQL's default 128 MB of shared buffers live inside PGlite's WebAssembly memory, which never shrinks:
// 32 MB took a reopened database from ~280 MB to ~180 MB RSS. Pages past it come from the OS page cache, and one
// bot's working set (the threads and runs being answered, a few files' chunks) fits.
export const pgliteStartParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

/** An error as plain data that crosses a thread or process boundary: name, message, stack, PostgreSQL's fields. */
export function describeError(error) {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const fields = {};
  for (const [key, value] of Object.entries(error)) {
    if (['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { ...fields, name: error.name, message: error.message, stack: error.stack };
}
