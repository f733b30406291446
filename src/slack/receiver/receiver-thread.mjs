/**
 * Slack's HTTP endpoint, on a thread of its own (started by threaded-http-receiver.ts). Slack wants every request
 * acknowledged within 3 seconds, and a burst of mentions arrives all at once; on the main thread each
 * acknowledgement waited behind whatever the event loop was doing for the answers in progress (Slack and model
 * calls, database work), so the last mentions of a 50-mention burst waited 100–180 ms (bench: load.ack_p99_ms).
 * Here a request costs only reading, verifying and answering it.
 *
 * The thread verifies each request's signature, answers what needs no app (ssl_check, url_verification), answers
 * Events API deliveries at once with an empty 200 and hands them to the app, and hands everything else (slash
 * commands, interactivity) to the app and waits for its ack(), which may carry a response body. GET /healthz is
 * asked of the main thread, so that a wedged event loop shows up as unhealthy.
 *
 * Plain JavaScript: it runs without tsx. Its messages: see ThreadMessage in threaded-http-receiver.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, unlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { classifySlackBody, parseSlackBody, retryOf, verifySlackSignature } from './signed-request.mjs';

const { signingSecret, port, eventsPath, healthPath, bodyLimitBytes, ackTimeoutMs, healthTimeoutMs, journal } = workerData;

/** Requests waiting for the main thread: an app's ack(), or a health check. */
const waiting = new Map();
let nextId = 1;

const post = (message) => parentPort.postMessage(message);
const log = (level, message, fields = {}) => post({ type: 'log', level, message, fields });

const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    log('error', 'could not handle a request from Slack', { error: error instanceof Error ? error.message : String(error) });
    if (!res.headersSent) res.writeHead(500).end();
  });
});

async function handle(req, res) {
  const path = (req.url ?? '/').split('?')[0];
  if (path === healthPath && (req.method === 'GET' || req.method === 'HEAD')) {
    return askMainThread(res, { type: 'health' }, healthTimeoutMs, () => {
      log('error', 'the health check got no answer from the event loop', { waitedMs: healthTimeoutMs });
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"ok":false,"error":"event loop not responding"}');
    });
  }
  if (path !== eventsPath) return void res.writeHead(404).end();
  if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();

  const rawBody = await readBody(req, bodyLimitBytes);
  if (rawBody === undefined) {
    log('warn', 'refused a request whose body is over the size limit', { limitBytes: bodyLimitBytes });
    return void res.writeHead(413, { connection: 'close' }).end();
  }
  const verdict = verifySlackSignature({
    signingSecret,
    rawBody,
    timestamp: single(req.headers['x-slack-request-timestamp']),
    signature: single(req.headers['x-slack-signature']),
    nowSeconds: Math.floor(Date.now() / 1000),
  });
  if (!verdict.ok) {
    log('warn', 'refused a request not signed by Slack', { reason: verdict.reason, from: req.socket.remoteAddress });
    return void res.writeHead(401).end();
  }
  let body;
  try {
    body = parseSlackBody(rawBody, single(req.headers['content-type']));
  } catch (error) {
    // Acknowledged all the same: Slack would only send the same unreadable body again.
    log('warn', 'dropped a signed request whose body could not be read', { reason: error instanceof Error ? error.message : String(error) });
    return void res.writeHead(200).end();
  }

  const retry = retryOf(req.headers);
  const kind = classifySlackBody(body);
  switch (kind.kind) {
    case 'ssl_check':
      return void res.writeHead(200).end();
    case 'url_verification':
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: kind.challenge }));
    case 'rate_limited':
      res.writeHead(200).end();
      log('warn', 'Slack is holding back events for this app (app_rate_limited): more than 30,000 in the last hour', {
        minuteRateLimited: body.minute_rate_limited,
      });
      return;
    case 'event': {
      // Slack never redelivers an event it got a 200 for: the 200 goes out only once the delivery is recorded in
      // the database, from where a process that dies before the run row exists is replayed. Nothing the app does
      // can change an Events API response, so the app sees it after the 200.
      if (!journal) {
        res.writeHead(200).end();
        post({ type: 'request', body, ...retry });
        return;
      }
      let deliveryId;
      try {
        deliveryId = await recordDelivery(body, retry);
      } catch (error) {
        // Not recorded, not acknowledged: Slack retries it (and the event-id dedupe keeps a late write harmless).
        logJournalFailure(error);
        return void res.writeHead(503).end();
      }
      res.writeHead(200).end();
      post({ type: 'request', body, ...retry, deliveryId });
      return;
    }
    case 'needs_app':
      return askMainThread(res, { type: 'request', body, ...retry }, ackTimeoutMs, () => {
        // As Bolt's own receiver does when no listener acknowledges in time.
        log('error', 'a request from Slack was not acknowledged within 3 seconds; is there a listener for it?', { type: body.type ?? body.command });
        res.writeHead(404).end();
      });
  }
}

// ---- the delivery journal: group-committed, either to the database through a query port (PostgreSQL, shared by
// the replicas) or to a local append-only file (the embedded database, itself a file in DATA_DIR: as durable, and
// free of the database's lock, which a transaction of the main thread can hold across a busy event loop) ----

/** Deliveries waiting for the next write: whatever arrives while one write runs goes into the next. */
const unrecorded = [];
let recording = false;
const journalCalls = new Map();
let nextJournalCall = 1;
let lastJournalFailureLog = 0;

if (journal?.kind === 'port') {
  journal.port.on('message', ({ id, ok, error }) => {
    const call = journalCalls.get(id);
    if (!call) return;
    journalCalls.delete(id);
    clearTimeout(call.timer);
    if (ok) call.resolve();
    else call.reject(new Error(error?.message ?? 'the database refused the delivery'));
  });
}

function recordDelivery(body, retry) {
  return new Promise((resolve, reject) => {
    unrecorded.push({ id: randomUUID(), body, retry, resolve, reject });
    if (!recording) {
      recording = true;
      // One turn first: the rest of a burst read in this turn joins the same write.
      setImmediate(writeDeliveries);
    }
  });
}

async function writeDeliveries() {
  while (unrecorded.length > 0) {
    const batch = unrecorded.splice(0, 200);
    const rows = batch.map(({ id, body, retry }) => ({ id, receivedBy: journal.receivedBy, body, ...retry }));
    try {
      if (journal.kind === 'file') await appendToSegment(rows);
      else await journalQuery(journal.sql, [JSON.stringify(rows)]);
      for (const delivery of batch) delivery.resolve(delivery.id);
    } catch (error) {
      for (const delivery of batch) delivery.reject(error);
    }
  }
  recording = false;
}

/** One statement on the journal's port; rejects after `journal.timeoutMs`, within Slack's 3 s. */
function journalQuery(sql, params) {
  const id = nextJournalCall++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      journalCalls.delete(id);
      reject(new Error(`the database did not record the delivery within ${journal.timeoutMs} ms`));
    }, journal.timeoutMs);
    journalCalls.set(id, { resolve, reject, timer });
    journal.port.postMessage({ id, op: 'query', sql, params });
  });
}

/**
 * The file journal: segments of JSON lines in journal.dir, each synced to disk before its deliveries are
 * acknowledged. A segment is deleted once every delivery in it is settled (the main thread says so) and a newer
 * one is being written; what a dead process leaves is imported into the database by the next start and replayed.
 */
const segments = new Map();
const segmentOfDelivery = new Map();
let current;
let segmentCounter = 0;

async function appendToSegment(rows) {
  if (!current || current.entries >= 1_000 || Date.now() - current.openedAt > 10_000) await rotateSegment();
  const segment = current;
  for (const row of rows) {
    segment.pending.add(row.id);
    segmentOfDelivery.set(row.id, segment);
  }
  segment.entries += rows.length;
  await segment.handle.write(rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  await segment.handle.datasync();
}

async function rotateSegment() {
  const previous = current;
  await mkdir(journal.dir, { recursive: true });
  const name = path.join(journal.dir, `${Date.now()}-${process.pid}-${++segmentCounter}.jsonl`);
  current = { name, handle: await open(name, 'a'), pending: new Set(), entries: 0, openedAt: Date.now(), closed: false };
  segments.set(name, current);
  if (previous) {
    previous.closed = true;
    await previous.handle.close();
    await dropIfSettled(previous);
  }
}

async function dropIfSettled(segment) {
  if (!segment.closed || segment.pending.size > 0 || !segments.has(segment.name)) return;
  segments.delete(segment.name);
  await unlink(segment.name).catch(() => {});
}

function settle(ids) {
  for (const id of ids) {
    const segment = segmentOfDelivery.get(id);
    if (!segment) continue;
    segmentOfDelivery.delete(id);
    segment.pending.delete(id);
    void dropIfSettled(segment);
  }
}

async function closeJournal() {
  if (journal?.kind === 'port') return journal.port.close();
  if (!current) return;
  current.closed = true;
  await current.handle.close().catch(() => {});
  await dropIfSettled(current);
}

/** One line per outage, not one per delivery. */
function logJournalFailure(error) {
  if (Date.now() - lastJournalFailureLog < 10_000) return;
  lastJournalFailureLog = Date.now();
  log('error', 'could not record deliveries from Slack; answering 503 so that Slack delivers them again', {
    error: error instanceof Error ? error.message : String(error),
  });
}

/** Posts `message` with a fresh id; the main thread's `respond` with that id answers `res`, unless `timeoutMs` passes first. */
function askMainThread(res, message, timeoutMs, onTimeout) {
  const id = nextId++;
  const timer = setTimeout(() => {
    waiting.delete(id);
    onTimeout();
  }, timeoutMs);
  waiting.set(id, { res, timer });
  post({ ...message, id });
}

function respond({ id, status, contentType, body }) {
  const entry = waiting.get(id);
  if (!entry) return; // answered already, by its timeout
  waiting.delete(id);
  clearTimeout(entry.timer);
  entry.res.writeHead(status, contentType ? { 'content-type': contentType } : {}).end(body);
}

/** The body as text, or undefined once it is over `limit` bytes (the rest is read and dropped). */
function readBody(req, limit) {
  if (Number(req.headers['content-length']) > limit) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size <= limit ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.on('error', reject);
  });
}

function single(value) {
  return Array.isArray(value) ? value[0] : value;
}

parentPort.on('message', (message) => {
  if (message.type === 'respond') respond(message);
  else if (message.type === 'settled') settle(message.ids);
  else if (message.type === 'close') {
    // No new connections; idle keep-alive ones are closed, requests in progress finish (an ack from the app, or
    // its timeout). Every request handed over so far was posted before 'closed', so the app has them all.
    server.close(() => {
      void closeJournal().finally(() => post({ type: 'closed' }));
    });
    server.closeIdleConnections();
  }
});

server.on('error', (error) => post({ type: 'listen-failed', code: error.code, message: error.message }));
server.listen(port, () => post({ type: 'listening', port: server.address().port }));
