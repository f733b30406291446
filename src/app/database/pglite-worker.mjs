/**
 * The embedded database's own thread: PGlite runs here, and the main thread talks to it through messages
 * (pglite-in-worker.ts). Plain JavaScript, so it loads the same way under `npm start`, vitest and the bench.
 *
 * Messages in: { id, op: 'query' | 'exec' | 'begin' | 'end' | 'close', txId?, ... }.
 * Messages out: { id, ok: true, result } or { id, ok: false, error: { message, name, code, … } }.
 */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { describeError, pgliteStartParams } from './pglite-options.mjs';
import { DATABASE_NICENESS, lowerThreadPriority } from '../../runtime/thread-priority.mjs';

// Answers wait on the database; Slack's acknowledgements do not: the event loop goes first.
lowerThreadPriority(DATABASE_NICENESS);

/** Raised inside a PGlite transaction to make it roll back; never leaves this thread. */
const ROLL_BACK = Symbol('roll back');

const transactions = new Map();
let database;

try {
  // A database in memory starts from the shipped template too (pglite-template.ts): PGlite's own initdb costs
  // 5–15 s of CPU, the template's files about a second.
  const loadDataDir = workerData.template ? new Blob([await readFile(workerData.template)], { type: 'application/gzip' }) : undefined;
  database = await PGlite.create(workerData.dataDir ?? undefined, { startParams: pgliteStartParams, ...(loadDataDir ? { loadDataDir } : {}) });
  parentPort.postMessage({ id: 0, ok: true, result: 'ready' });
} catch (error) {
  parentPort.postMessage({ id: 0, ok: false, error: describeError(error) });
}

/** Answers one port: the main thread's, or one attached for another thread (the HTTP receiver's delivery journal). */
function serve(port) {
  port.on('message', async (message) => {
    if (message.op === 'attach') return serve(message.port);
    try {
      port.postMessage({ id: message.id, ok: true, result: await handle(message) });
    } catch (error) {
      port.postMessage({ id: message.id, ok: false, error: describeError(error) });
    }
  });
}
serve(parentPort);

async function handle(message) {
  switch (message.op) {
    case 'query':
      return clientFor(message.txId).query(message.sql, message.params, queryOptions(message));
    case 'exec':
      return clientFor(message.txId).exec(message.sql);
    case 'begin':
      return begin(message.txId);
    case 'end':
      return end(message.txId, message.commit);
    case 'close':
      await database.close();
      return 'closed';
    default:
      throw new Error(`unknown operation ${message.op}`);
  }
}

function clientFor(txId) {
  if (txId === undefined) return database;
  const transaction = transactions.get(txId);
  if (!transaction) throw new Error(`transaction ${txId} is not open (it ended, or never began)`);
  return transaction.tx;
}

/**
 * Opens a PGlite transaction and keeps it open until `end`: PGlite's own lock then holds every other query back
 * until it commits, exactly as when PGlite ran on the main thread.
 */
function begin(txId) {
  return new Promise((resolve, reject) => {
    let finish;
    const ended = new Promise((resolveEnded) => (finish = resolveEnded));
    const done = database.transaction(async (tx) => {
      transactions.set(txId, { tx, finish, done });
      resolve('begun');
      if (!(await ended)) throw ROLL_BACK;
    });
    done.catch(reject); // BEGIN itself failed: the caller's begin fails (after it succeeded, this does nothing)
  });
}

async function end(txId, commit) {
  const transaction = transactions.get(txId);
  if (!transaction) throw new Error(`transaction ${txId} is not open (it ended, or never began)`);
  transactions.delete(txId);
  transaction.finish(commit);
  try {
    await transaction.done;
  } catch (error) {
    if (error !== ROLL_BACK) throw error;
  }
  return commit ? 'committed' : 'rolled back';
}

/**
 * Parsers are functions and cannot cross threads; drizzle only ever asks for some types to stay as the text
 * PostgreSQL sent, so the main thread sends those type ids and they get the identity parser here.
 */
function queryOptions({ rowMode, rawTypes }) {
  const parsers = Object.fromEntries((rawTypes ?? []).map((type) => [type, (value) => value]));
  return { rowMode, parsers };
}

