/**
 * The embedded database on a thread of its own. PGlite is PostgreSQL compiled to WebAssembly: each statement
 * runs synchronously wherever PGlite lives, for 0.3–15 ms. On the main thread that time was taken from the event
 * loop, and Node accepts one new connection per loop turn, so a burst of 50 mentions waited for every statement
 * queued before it: acknowledgements took 0.4–0.7 s (bench: load.ack_p99_ms). On its own thread the database
 * costs the event loop one message each way per statement.
 *
 * The client below is the part of PGlite's interface that drizzle's PGlite driver uses (query, exec,
 * transaction); transactions stay open in the worker until the callback here settles, so PGlite's own lock
 * orders them against everything else, as it did in-process.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { TEMPLATE_FILE, templateUsable } from './pglite-template';

export interface PgliteThread {
  /** Give it to `drizzle()` from drizzle-orm/pglite in place of a PGlite instance. */
  client: WorkerPgliteClient;
  /** A port another thread can send { id, op: 'query', sql, params } to, answered by the database's thread directly. */
  openPort(): MessagePort;
  close(): Promise<void>;
}

interface QueryOptions {
  rowMode?: 'array' | 'object';
  /** Only identity parsers (keep the type as text) can be honoured: functions cannot cross threads. */
  parsers?: Record<number, (value: string, typeId: number) => unknown>;
}

interface WorkerPgliteTransaction {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

interface WorkerPgliteClient {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
  transaction<T>(callback: (tx: WorkerPgliteTransaction) => Promise<T>): Promise<T>;
}

interface WorkerReply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: { name: string; message: string; stack?: string } & Record<string, unknown>;
}

/** Starts the thread and opens PGlite in `dataDir` (in memory when undefined); rejects if it cannot open. */
export async function startPgliteThread(dataDir: string | undefined): Promise<PgliteThread> {
  if (dataDir && !existsSync(path.join(dataDir, 'PG_VERSION'))) await initialiseInChildProcess(dataDir);
  // The thread's JavaScript only passes rows along (PGlite's memory is WebAssembly, outside the heap): a young
  // generation of 8 MB rather than V8's 48 MB is enough, and is what its heap commits.
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData: { dataDir, template: dataDir === undefined && templateUsable() ? TEMPLATE_FILE : undefined }, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let stopped: Error | undefined;
  let nextCall = 1;
  let nextTransaction = 1;

  // The thread keeps the process alive only while a call waits for it: a forgotten handle must not hang exit,
  // and a script awaiting a query must not exit under it.
  const track = (id: number, resolve: (value: unknown) => void, reject: (error: Error) => void) => {
    pending.set(id, { resolve, reject });
    worker.ref();
  };
  const stop = (error: Error) => {
    stopped ??= error;
    for (const { reject } of pending.values()) reject(stopped);
    pending.clear();
  };
  worker.on('message', ({ id, ok, result, error }: WorkerReply) => {
    const call = pending.get(id);
    if (!call) return;
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    if (ok) call.resolve(result);
    else call.reject(rebuildError(error!));
  });
  worker.on('error', (error) => stop(new Error(`The embedded database stopped: ${error.message}. Restart threadwise to reopen it.`, { cause: error })));
  worker.on('exit', (code) => stop(new Error(`The embedded database's thread exited (code ${code}). Restart threadwise to reopen it.`)));

  const call = (message: Record<string, unknown>): Promise<unknown> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextCall++;
    return new Promise((resolve, reject) => {
      track(id, resolve, reject);
      worker.postMessage({ ...message, id });
    });
  };

  const ready = new Promise((resolve, reject) => track(0, resolve, reject));
  try {
    await ready;
  } catch (error) {
    await worker.terminate();
    throw error;
  }

  const query = (txId: number | undefined) => (sql: string, params: unknown[] = [], options: QueryOptions = {}) =>
    call({ op: 'query', txId, sql, params, rowMode: options.rowMode, rawTypes: rawTypesOf(options.parsers) });
  const exec = (txId: number | undefined) => (sql: string) => call({ op: 'exec', txId, sql });

  const client: WorkerPgliteClient = {
    query: query(undefined),
    exec: exec(undefined),
    async transaction(callback) {
      const txId = nextTransaction++;
      await call({ op: 'begin', txId });
      let closed = false;
      const end = async (commit: boolean) => {
        closed = true;
        await call({ op: 'end', txId, commit });
      };
      const tx: WorkerPgliteTransaction = {
        query: (sql, params, options) => (closed ? Promise.reject(closedTransaction()) : query(txId)(sql, params, options)),
        exec: (sql) => (closed ? Promise.reject(closedTransaction()) : exec(txId)(sql)),
        rollback: () => end(false),
        get closed() {
          return closed;
        },
      };
      let result;
      try {
        result = await callback(tx);
      } catch (error) {
        if (!closed) await end(false).catch(() => {}); // the callback's error is the one to report
        throw error;
      }
      if (!closed) await end(true);
      return result;
    },
  };

  return {
    client,
    openPort() {
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ op: 'attach', port: port2 }, [port2]);
      return port1;
    },
    async close() {
      if (!stopped) await call({ op: 'close' });
      stop(new Error('The embedded database is closed.'));
      await worker.terminate();
    },
  };
}

/**
 * Creates the database in a child process (pglite-initdb.mjs) that exits right after: initdb grows PGlite's
 * WebAssembly memory to ~850 MB and leaves ~100 MB in the allocator that a thread's end would not give back; a
 * process's end does. The database's real thread then reopens it (peak and steady RSS of a first start, and of the
 * bench).
 */
async function initialiseInChildProcess(dataDir: string): Promise<void> {
  // No inherited flags: the script is plain JavaScript (no tsx), and test-runner or inspector flags must not follow.
  const child = fork(fileURLToPath(new URL('./pglite-initdb.mjs', import.meta.url)), [dataDir], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2_000)));
  let reply: Pick<WorkerReply, 'ok' | 'error'> | undefined;
  child.once('message', (message: Pick<WorkerReply, 'ok' | 'error'>) => (reply = message));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, signal) => resolve(exitCode ?? (signal ? -1 : null)));
  });
  if (reply?.ok) return;
  if (reply?.error) throw rebuildError(reply.error);
  const said = stderr.trim().split('\n').at(-1);
  throw new Error(`The process creating the embedded database in ${dataDir} exited (code ${code})${said ? `: ${said}` : ''}.`);
}

function closedTransaction(): Error {
  return new Error('This transaction has already ended.');
}

/** The types drizzle wants left as text; anything but an identity parser is refused rather than ignored. */
function rawTypesOf(parsers: QueryOptions['parsers']): number[] {
  return Object.entries(parsers ?? {}).map(([type, parser]) => {
    if (parser('2000-01-01', Number(type)) !== '2000-01-01') {
      throw new Error(`A custom parser for type ${type} cannot run on the embedded database's thread.`);
    }
    return Number(type);
  });
}

/** The database's error as the caller would have seen it in-process: same message, same PostgreSQL fields. */
function rebuildError(described: NonNullable<WorkerReply['error']>): Error {
  const { name, message, stack, ...fields } = described;
  const error = Object.assign(new Error(message), fields);
  error.name = name;
  if (stack) error.stack = `${stack}\n    (on the embedded database's thread)`;
  return error;
}
