/**
 * A small PostgreSQL connection pool on a thread of its own, answering query ports for other threads (the HTTP
 * receiver's delivery journal): a delivery is recorded without waiting for the main thread's event loop. Plain
 * JavaScript, so it loads the same way under `npm start`, vitest and the bench.
 *
 * Messages in (on an attached port): { id, op: 'query', sql, params }. Out: { id, ok: true } or { id, ok: false,
 * error: { message, code } }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import postgres from 'postgres';

const client = postgres(workerData.url, {
  max: 2,
  onnotice: () => {},
  connect_timeout: 5,
  idle_timeout: 30,
  keep_alive: 10,
  connection: { statement_timeout: 5_000 },
  backoff: (failures) => Math.min(0.05 * 2 ** failures, 1),
  // As in open-database.ts: a connection refused during postgres.js's own array-type query would otherwise end
  // this thread with an unhandled rejection (porsager/postgres#1192).
  fetch_types: false,
});

parentPort.on('message', (message) => {
  if (message.op === 'attach') serve(message.port);
  else if (message.op === 'close') void client.end({ timeout: 2 }).finally(() => parentPort.postMessage({ op: 'closed' }));
});

function serve(port) {
  port.on('message', async ({ id, op, sql, params }) => {
    if (op !== 'query') return port.postMessage({ id, ok: false, error: { message: `unknown operation ${op}` } });
    try {
      await client.unsafe(sql, params);
      port.postMessage({ id, ok: true });
    } catch (error) {
      port.postMessage({ id, ok: false, error: { message: error?.message ?? String(error), code: error?.code } });
    }
  });
}
