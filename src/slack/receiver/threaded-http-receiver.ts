/**
 * Bolt's receiver for HTTP mode, with the HTTP side on a thread of its own (receiver-thread.mjs): requests are
 * verified and acknowledged there, so an acknowledgement never waits for the main thread's event loop, however
 * busy answering makes it. Bolt itself stays on the main thread and sees every verified request as its own
 * HTTPReceiver would hand it over (body, retry number and reason, an ack()).
 */
import { Worker, type MessagePort } from 'node:worker_threads';
import type { Logger } from '../../logging/logger';
import { codeOf } from '../../core/errors';
import type { Activity } from '../../core/activity';

export interface HealthReport {
  status: number;
  body: Record<string, unknown>;
}

/** A page served on GET beside the Slack endpoint (the OAuth callback): asked of the main thread. */
interface PageResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type PageHandler = (query: URLSearchParams) => Promise<PageResponse>;

export interface ThreadedHttpReceiverOptions {
  signingSecret: string;
  logger: Logger;
  /** Answers GET /healthz; asked on the main thread, so a wedged event loop fails it by timing out. */
  health: () => Promise<HealthReport>;
  /** Bolt's default: 4 MB. */
  bodyLimitBytes?: number;
  /** A slash command or an interaction not acknowledged by then gets a 404, as with Bolt's own receiver. */
  ackTimeoutMs?: number;
  healthTimeoutMs?: number;
  /**
   * Where Events API deliveries are recorded before their 200: a fresh query port to the database for each receiver
   * thread (it speaks { id, op: 'query', sql, params } → { id, ok, error? }), the insert to run on it (one JSON array
   * parameter of { id, receivedBy, body, retryNum, retryReason }), and this process's replica id. With `dir`, each
   * delivery is first flushed to a journal file there and acknowledged, then moved into the database
   * (delivery-journal-file.mjs): for the embedded database, whose one connection a transaction of the main thread
   * holds. Without a journal, deliveries are acknowledged unrecorded.
   */
  journal?: { openPort(): MessagePort; sql: string; receivedBy: string; timeoutMs?: number; dir?: string };
  /** A recorded delivery has been processed by Bolt: the caller settles its record. */
  onDelivered?: (deliveryId: string) => void;
  /** Test-only: the process kills itself (SIGKILL) right after the first recorded delivery's 200. */
  killAfterAckForTests?: boolean;
  /** Where each request registers while Bolt processes it. */
  activity?: Activity;
  /** GET pages by path (e.g. /oauth/callback), answered on the main thread; 504 after `pageTimeoutMs` (default 60 s). */
  pages?: Record<string, PageHandler>;
  pageTimeoutMs?: number;
}

/** A recorded delivery to process again (its process died before its run was written). */
interface ReplayedDelivery {
  id: string;
  body: Record<string, unknown>;
  retryNum?: number;
  retryReason?: string;
}

/**
 * Bolt's side of a receiver, by shape: what it gives `init()` and what `processEvent` takes. Declared here so this
 * edge does not import Bolt (only the composition root does); Bolt's App and Receiver types accept it as it is.
 */
interface BoltEventProcessor {
  processEvent(event: {
    body: Record<string, any>;
    ack: (response?: any) => Promise<void>;
    retryNum?: number;
    retryReason?: string;
    customProperties?: Record<string, unknown>;
  }): Promise<void>;
}

/** Bolt's AuthorizationError, by its code (bolt's ErrorCode.AuthorizationError). */
const BOLT_AUTHORIZATION_ERROR = 'slack_bolt_authorization_error';

export interface ThreadedHttpReceiver {
  init(app: BoltEventProcessor): void;
  /** The port listened on, once started (useful with port 0). */
  readonly port: number;
  start(port: number): Promise<{ port: number }>;
  /** Stops listening; resolves once Bolt has processed every request already acknowledged. */
  stop(): Promise<void>;
  /** Hands recorded deliveries to Bolt as if they had just arrived (they were acknowledged already). */
  replay(deliveries: ReplayedDelivery[]): void;
  /**
   * Events API deliveries the thread acknowledged that have not reached this thread yet (those Bolt is processing
   * are registered with `activity`).
   */
  pending(): number;
}

/** What the thread posts to the main thread. */
type ThreadMessage =
  | { type: 'listening'; port: number }
  | { type: 'listen-failed'; code?: string; message: string }
  | { type: 'request'; id?: number; body: Record<string, unknown>; retryNum?: number; retryReason?: string; deliveryId?: string }
  | { type: 'health'; id: number }
  | { type: 'page'; id: number; path: string; search: string }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; message: string; fields: Record<string, unknown> }
  | { type: 'closed' };

const EVENTS_PATH = '/slack/events';
const HEALTH_PATH = '/healthz';

export function createThreadedHttpReceiver(options: ThreadedHttpReceiverOptions): ThreadedHttpReceiver {
  const { logger } = options;
  let app: BoltEventProcessor | undefined;
  let worker: Worker | undefined;
  let port = 0;
  let stopping = false;
  /** Requests Bolt is still processing: stop() waits for them, so that what was acknowledged reaches the intake. */
  const inFlight = new Set<Promise<void>>();
  /** Events API deliveries the thread acknowledged that have not arrived here yet: it counts up, `dispatch` down. */
  const handedOver = new Int32Array(new SharedArrayBuffer(4));
  let whenClosed: (() => void) | undefined;

  const respond = (id: number, status: number, body?: unknown) => {
    const text = body === undefined || body === '' ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const contentType = text !== undefined && typeof body !== 'string' ? 'application/json' : undefined;
    worker?.postMessage({ type: 'respond', id, status, contentType, body: text });
  };

  /** Hands one verified request to Bolt. Events API deliveries were acknowledged by the thread already (no id). */
  const dispatch = ({ id, body, retryNum, retryReason, deliveryId }: Extract<ThreadMessage, { type: 'request' }>) => {
    let acknowledged = id === undefined;
    const ack = async (response?: unknown) => {
      if (acknowledged) return;
      acknowledged = true;
      respond(id!, 200, response);
    };
    const processing = app!
      .processEvent({ body, ack, retryNum, retryReason, customProperties: deliveryId ? { deliveryId } : {} })
      .catch((error: unknown) => {
        logger.error('an error escaped Bolt while it processed a request from Slack', { error, type: body.type ?? body.command });
        if (acknowledged) return;
        acknowledged = true;
        respond(id!, codeOf(error) === BOLT_AUTHORIZATION_ERROR ? 401 : 500);
      })
      .finally(() => {
        inFlight.delete(processing);
        if (deliveryId) options.onDelivered?.(deliveryId);
      });
    inFlight.add(processing);
    options.activity?.track(processing);
  };

  const checkHealth = (id: number) => {
    options.health().then(
      ({ status, body }) => respond(id, status, body),
      (error: unknown) => {
        logger.warn('the health check failed', { error });
        respond(id, 503, { ok: false });
      },
    );
  };

  const servePage = (id: number, path: string, search: string) => {
    const handler = options.pages?.[path];
    if (!handler) return respond(id, 404);
    handler(new URLSearchParams(search)).then(
      (page) => worker?.postMessage({ type: 'respond', id, status: page.status, headers: page.headers, body: page.body }),
      (error: unknown) => {
        logger.error('a page failed', { path, error });
        worker?.postMessage({ type: 'respond', id, status: 500, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'Something went wrong. Go back to Slack and try again.' });
      },
    );
  };

  const spawn = (listenOn: number) =>
    new Promise<void>((resolve, reject) => {
      // A port of its own for each thread: a port moved into a thread that died is gone with it.
      const journalPort = options.journal?.openPort();
      const thread = new Worker(new URL('./receiver-thread.mjs', import.meta.url), {
        // Small requests, parsed and passed on: an 8 MB young generation (V8's default is 48 MB) is plenty.
        resourceLimits: { maxYoungGenerationSizeMb: 8 },
        workerData: {
          signingSecret: options.signingSecret,
          port: listenOn,
          eventsPath: EVENTS_PATH,
          healthPath: HEALTH_PATH,
          bodyLimitBytes: options.bodyLimitBytes ?? 4 * 1024 * 1024,
          ackTimeoutMs: options.ackTimeoutMs ?? 3_001,
          healthTimeoutMs: options.healthTimeoutMs ?? 10_000,
          journal: journalPort && {
            port: journalPort,
            sql: options.journal!.sql,
            receivedBy: options.journal!.receivedBy,
            timeoutMs: options.journal!.timeoutMs ?? 2_000,
            dir: options.journal!.dir,
          },
          killAfterAckForTests: options.killAfterAckForTests === true,
          handedOver,
          pagePaths: Object.keys(options.pages ?? {}),
          pageTimeoutMs: options.pageTimeoutMs ?? 60_000,
        },
        transferList: journalPort ? [journalPort] : [],
      });
      worker = thread;
      let listening = false;
      thread.on('message', (message: ThreadMessage) => {
        switch (message.type) {
          case 'listening':
            listening = true;
            port = message.port;
            resolve();
            break;
          case 'listen-failed':
            if (!listening) reject(new Error(`Could not listen on port ${listenOn} (${message.code ?? message.message}). Is another process using it? Set PORT to a free one.`));
            else logger.error('the HTTP server failed', { error: message.message });
            break;
          case 'request':
            if (message.id === undefined) Atomics.sub(handedOver, 0, 1);
            dispatch(message);
            break;
          case 'health':
            checkHealth(message.id);
            break;
          case 'page':
            servePage(message.id, message.path, message.search);
            break;
          case 'log':
            logger[message.level](message.message, message.fields);
            break;
          case 'closed':
            whenClosed?.();
            break;
        }
      });
      thread.on('error', (error) => {
        if (!listening) reject(error);
        else logger.error('the HTTP receiver thread failed', { error });
      });
      thread.on('exit', (code) => {
        if (thread !== worker || stopping) return;
        worker = undefined;
        Atomics.store(handedOver, 0, 0); // what the thread acknowledged and never sent is replayed from its record
        if (!listening) return reject(new Error(`The HTTP receiver thread exited (code ${code}) before listening.`));
        // Without it nothing reaches the bot: bring it back on the same port; answers in progress are unaffected.
        logger.error('the HTTP receiver thread stopped; starting it again', { code, port });
        spawn(port).catch((error: unknown) => logger.error('could not restart the HTTP receiver thread; restart threadwise', { error, port }));
      });
    });

  return {
    get port() {
      return port;
    },
    init(boltApp) {
      app = boltApp;
    },
    async start(listenOn: number) {
      if (!app) throw new Error('The receiver was started before Bolt initialised it (App.init).');
      stopping = false;
      await spawn(listenOn);
      return { port };
    },
    async stop() {
      const thread = worker;
      if (!thread) return;
      stopping = true;
      const closed = new Promise<void>((resolve) => (whenClosed = resolve));
      thread.postMessage({ type: 'close' });
      // A keep-alive client or a listener that never acks cannot hold shutdown past the ack timeout and a little.
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, (options.ackTimeoutMs ?? 3_001) + 1_000).unref())]);
      await Promise.allSettled([...inFlight]);
      worker = undefined;
      await thread.terminate();
    },
    replay(deliveries) {
      for (const { id, body, retryNum, retryReason } of deliveries) dispatch({ type: 'request', body, retryNum, retryReason, deliveryId: id });
    },
    pending: () => Math.max(0, Atomics.load(handedOver, 0)),
  };
}
