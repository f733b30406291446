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
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { openDeliveryJournalFile } from './delivery-journal-file.mjs';
import { classifySlackBody, parseSlackBody, retryOf, verifySlackSignature } from './signed-request.mjs';

const { signingSecret, port, eventsPath, healthPath, bodyLimitBytes, ackTimeoutMs, healthTimeoutMs, journal, killAfterAckForTests, handedOver } =
  workerData;
/** GET pages the main thread answers (the OAuth callback): not Slack's, so not signed. */
const pagePaths = new Set(workerData.pagePaths ?? []);
const pageTimeoutMs = workerData.pageTimeoutMs ?? 60_000;

/**
 * Events API deliveries acknowledged and not yet received by the main thread (it counts them down as they arrive):
 * counted before the 200, so that the app can tell an acknowledged delivery on its way from no delivery at all.
 */
const acknowledged = () => {
  if (handedOver) Atomics.add(handedOver, 0, 1);
};

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
  if (pagePaths.has(path) && req.method === 'GET') {
    const search = (req.url ?? '').slice(path.length);
    return askMainThread(res, { type: 'page', path, search }, pageTimeoutMs, () => {
      log('warn', 'a page got no answer in time', { path, waitedMs: pageTimeoutMs });
      res.writeHead(504, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('This took too long. Go back to Slack and try again.');
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
    // Signed, so from Slack (or a proxy in front of it): acknowledged, or Slack would only send it again, and dropped
    // with one line saying why, never what it said.
    log('warn', 'dropped a signed request whose body could not be read', {
      // JSON.parse's message quotes the body: say only that it was not JSON.
      reason: error instanceof SyntaxError ? 'not valid JSON' : error instanceof Error ? error.message : String(error),
    });
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
      // Slack never delivers again an event it got a 200 for: the 200 goes out only once the delivery is recorded
      // (in the journal file, or else in the database), from where a delivery whose process died before its run row
      // existed is replayed. Nothing the app does can change an Events API response, so the app sees it after the 200.
      if (!journal) {
        acknowledged();
        res.writeHead(200).end();
        post({ type: 'request', body, ...retry });
        return;
      }
      const delivery = { id: randomUUID(), receivedBy: journal.receivedBy, body, ...retry };
      const segment = await writeToJournalFile(delivery);
      if (!segment) {
        try {
          await recordDelivery(delivery);
        } catch (error) {
          // The database cannot take it now (down, or slower than the budget): acknowledged all the same and held in
          // memory by the intake until the database is back, as before there was a record. Answering 5xx instead
          // would leave it to Slack's three retries within ~5 minutes (and Slack turns off the subscription of an
          // app that keeps failing); the price is that a crash during the outage loses what is held.
          logJournalFailure(error);
          acknowledged();
          res.writeHead(200).end();
          post({ type: 'request', body, ...retry });
          return;
        }
      }
      if (killAfterAckForTests) {
        // Test-only (THREADWISE_TEST_KILL_AFTER_ACK): the process dies the moment Slack has its 200, before the app
        // has even seen the delivery — the window a crash used to lose the question in.
        res.writeHead(200).end(() => process.kill(process.pid, 'SIGKILL'));
        return;
      }
      acknowledged();
      res.writeHead(200).end();
      if (!segment) return void post({ type: 'request', body, ...retry, deliveryId: delivery.id });
      // On disk and acknowledged; now into the database, and only then to the app, whose run settles the row.
      const moving = recordDelivery(delivery).then(
        () => {
          journalFile.moved(segment);
          post({ type: 'request', body, ...retry, deliveryId: delivery.id });
        },
        (error) => {
          // Held in memory by the intake as above, and still in the journal file, which keeps it past a crash
          // during the outage: the next start moves it into the database.
          logJournalFailure(error);
          post({ type: 'request', body, ...retry });
        },
      );
      beingMoved.add(moving);
      void moving.finally(() => beingMoved.delete(moving));
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

// ---- the delivery journal: a file in DATA_DIR first when the database is the embedded one, then the database,
// through a query port answered off the main thread (PGlite's own thread, or a small PostgreSQL pool on a thread of
// its own); both group-committed ----

const journalFile = journal?.dir ? openJournalFile(journal.dir) : undefined;
/** Acknowledged deliveries on their way into the database: the app gets them before the thread says it is closed. */
const beingMoved = new Set();
/** One error line per outage, not one per delivery: `message` is logged at most every 10 s. */
function outageLogger(message) {
  let lastLoggedAt = 0;
  return (error) => {
    if (Date.now() - lastLoggedAt < 10_000) return;
    lastLoggedAt = Date.now();
    log('error', message, { error: error instanceof Error ? error.message : String(error) });
  };
}

const logJournalFileFailure = outageLogger(
  `could not write deliveries from Slack to ${journal?.dir}; recording them in the database before acknowledging instead (slower acks)`,
);
const logJournalFailure = outageLogger(
  'could not record deliveries from Slack in the database; acknowledging them unrecorded (held in memory until it is back)',
);

function openJournalFile(dir) {
  try {
    return openDeliveryJournalFile(dir);
  } catch (error) {
    log('error', `could not open the delivery journal in ${dir}; recording deliveries in the database before acknowledging them instead (slower acks). Check that DATA_DIR is writable by this user.`, {
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

/** The delivery's segment once it is on disk; undefined without a journal file or when the disk refused it. */
async function writeToJournalFile(delivery) {
  if (!journalFile) return undefined;
  try {
    return await journalFile.write(delivery);
  } catch (error) {
    // Disk full or read-only: recorded in the database before the 200 instead, as without a journal file.
    logJournalFileFailure(error);
    return undefined;
  }
}

/** Deliveries waiting for the next write: whatever arrives while one write runs goes into the next. */
const unrecorded = [];
let recording = false;
const journalCalls = new Map();
let nextJournalCall = 1;

journal?.port.on('message', ({ id, ok, error }) => {
  const call = journalCalls.get(id);
  if (!call) return;
  journalCalls.delete(id);
  clearTimeout(call.timer);
  if (ok) call.resolve();
  else call.reject(new Error(error?.message ?? 'the database refused the delivery'));
});

function recordDelivery(delivery) {
  return new Promise((resolve, reject) => {
    unrecorded.push({ delivery, resolve, reject });
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
    try {
      await journalQuery(journal.sql, [JSON.stringify(batch.map(({ delivery }) => delivery))]);
      for (const { resolve } of batch) resolve();
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }
  recording = false;
}

/** One statement on the journal's port; rejects after `journal.timeoutMs`, well within Slack's 3 s. */
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

function respond({ id, status, contentType, headers, body }) {
  const entry = waiting.get(id);
  if (!entry) return; // answered already, by its timeout
  waiting.delete(id);
  clearTimeout(entry.timer);
  entry.res.writeHead(status, headers ?? (contentType ? { 'content-type': contentType } : {})).end(body);
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
  else if (message.type === 'close') {
    // No new connections; idle keep-alive ones are closed, requests in progress finish (an ack from the app, or
    // its timeout). Every request handed over so far was posted before 'closed', so the app has them all.
    server.close(async () => {
      await Promise.allSettled([...beingMoved]);
      journal?.port.close();
      journalFile?.close();
      post({ type: 'closed' });
    });
    server.closeIdleConnections();
  }
});

// Longer than the idle timeout of the load balancers in front of it (60 s on most): with Node's default of 5 s, a
// proxy reusing a connection the server has just closed gets a reset, and Slack a 502.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.on('error', (error) => post({ type: 'listen-failed', code: error.code, message: error.message }));
server.listen(port, () => post({ type: 'listening', port: server.address().port }));
