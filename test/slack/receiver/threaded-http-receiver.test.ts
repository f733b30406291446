/**
 * The HTTP receiver's thread, driven over real HTTP with a stand-in for Bolt's App (the receiver only ever calls
 * its processEvent). The app itself, with Bolt and the real listeners behind this receiver, is exercised by every
 * test that uses the harness.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { App, ReceiverEvent } from '@slack/bolt';
import { createThreadedHttpReceiver, type ThreadedHttpReceiverOptions } from '../../../src/slack/receiver/threaded-http-receiver';
import { createLogger } from '../../../src/logging/logger';
import { readLeftoverDeliveries } from '../../../src/slack/receiver/delivery-journal-file.mjs';
import { mentionEvent, postInteraction, postSlackEvent, postSlashCommand, signSlackRequest, slackEventEnvelope } from '../../fakes/slack-signing';

const SECRET = 'receiver-test-signing-secret';

interface Running {
  url: string;
  port: number;
  /** What Bolt was handed, in order. */
  received: ReceiverEvent[];
  logs: string[];
  stop(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const receiver of running.splice(0)) await receiver.stop();
});

/** A receiver on a free port whose "Bolt" records each request and then runs `onEvent` (default: ack, empty). */
async function startReceiver(
  onEvent: (event: ReceiverEvent) => Promise<void> | void = (event) => event.ack(),
  options: Partial<ThreadedHttpReceiverOptions> = {},
): Promise<Running> {
  const logs: string[] = [];
  const received: ReceiverEvent[] = [];
  const receiver = createThreadedHttpReceiver({
    signingSecret: SECRET,
    logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
    health: async () => ({ status: 200, body: { ok: true } }),
    ...options,
  });
  receiver.init({
    processEvent: async (event: ReceiverEvent) => {
      received.push(event);
      await onEvent(event);
    },
  } as unknown as App);
  await receiver.start(0);
  const handle = { url: `http://127.0.0.1:${receiver.port}/slack/events`, port: receiver.port, received, logs, stop: () => receiver.stop() };
  running.push(handle);
  return handle;
}

const mention = mentionEvent({ channel: 'C0GENERAL', user: 'U0ANA', text: '<@U0BOT> hello', ts: '1790000000.000100' });

describe('the threaded HTTP receiver', () => {
  it('acknowledges an event while the main thread is blocked, and hands it to Bolt once it is free', async () => {
    const { url, received } = await startReceiver();
    // A client on another thread posts a signed mention and flags the status it got back. This thread blocks
    // until the flag is set: an acknowledgement that needed this thread's event loop could never arrive.
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const body = JSON.stringify(slackEventEnvelope(mention, { eventId: 'Ev0BLOCKED' }));
    const client = new Worker(
      `const { workerData: { url, body, headers, flag } } = require('node:worker_threads');
       fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
         .then((response) => { Atomics.store(flag, 0, response.status); Atomics.notify(flag, 0); });`,
      { eval: true, workerData: { url, body, headers: signSlackRequest(SECRET, body), flag } },
    );
    try {
      const woke = Atomics.wait(flag, 0, 0, 10_000);
      expect(woke).toBe('ok');
      expect(Atomics.load(flag, 0)).toBe(200);
      expect(received).toHaveLength(0); // this thread has not run since
      await expect.poll(() => received.length).toBe(1);
      expect(received[0]!.body).toMatchObject({ type: 'event_callback', event_id: 'Ev0BLOCKED', event: { type: 'app_mention' } });
    } finally {
      await client.terminate();
    }
  });

  it("passes Slack's retry number and reason on to Bolt", async () => {
    const { url, received } = await startReceiver();
    expect((await postSlackEvent(url, SECRET, mention, { retryNum: 2, retryReason: 'http_timeout' })).status).toBe(200);
    await expect.poll(() => received.length).toBe(1);
    expect(received[0]).toMatchObject({ retryNum: 2, retryReason: 'http_timeout' });
  });

  it("answers slash commands and interactions with what the listener's ack() gives", async () => {
    const { url } = await startReceiver(async (event) => {
      if (event.body.command === '/ask') await event.ack('Working on it.');
      else await event.ack({ response_action: 'clear' });
    });
    const command = await postSlashCommand(url, SECRET, { command: '/ask', text: 'why?', user_id: 'U0ANA', channel_id: 'C0GENERAL' });
    expect(command).toEqual({ status: 200, body: 'Working on it.' });
    const interaction = await postInteraction(url, SECRET, { type: 'view_submission', view: { callback_id: 'x' } });
    expect(interaction).toEqual({ status: 200, body: '{"response_action":"clear"}' });
  });

  it('answers 404 when no listener acknowledges a command in time, as Bolt does, and logs why', async () => {
    const { url, logs } = await startReceiver(() => {}, { ackTimeoutMs: 200 });
    const command = await postSlashCommand(url, SECRET, { command: '/unknown', text: '', user_id: 'U0ANA', channel_id: 'C0GENERAL' });
    expect(command.status).toBe(404);
    expect(logs.some((line) => line.includes('was not acknowledged within 3 seconds') && line.includes('/unknown'))).toBe(true);
  });

  it('answers 500 when Bolt fails before a command was acknowledged', async () => {
    const { url, logs } = await startReceiver(() => {
      throw new Error('listener exploded');
    });
    const command = await postSlashCommand(url, SECRET, { command: '/ask', text: 'x', user_id: 'U0ANA', channel_id: 'C0GENERAL' });
    expect(command.status).toBe(500);
    expect(logs.some((line) => line.includes('listener exploded'))).toBe(true);
  });

  it('refuses forged and replayed requests, and drops unreadable ones, without bothering Bolt, saying why in the log', async () => {
    const { url, received, logs } = await startReceiver();
    expect((await postSlackEvent(url, SECRET, mention, { badSignature: true })).status).toBe(401);
    expect((await postSlackEvent(url, SECRET, mention, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(401);
    const broken = '{"type":"event_callback",';
    const malformed = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...signSlackRequest(SECRET, broken) }, body: broken });
    // Signed but unreadable: acknowledged (Slack would only send it again) and dropped with a line saying why.
    expect(malformed.status).toBe(200);
    expect(received).toHaveLength(0);
    expect(logs.filter((line) => line.includes('dropped a signed request whose body could not be read'))).toHaveLength(1);
    expect(logs.filter((line) => line.includes('refused a request not signed by Slack')).map((line) => JSON.parse(line).reason)).toEqual([
      'signature mismatch',
      expect.stringContaining('stale timestamp'),
    ]);
    expect(logs.join('\n')).not.toContain(SECRET);
  });

  it('refuses a body over the size limit with 413', async () => {
    const { url, received } = await startReceiver(undefined, { bodyLimitBytes: 1_000 });
    const big = JSON.stringify(slackEventEnvelope({ ...mention, text: 'x'.repeat(2_000) }));
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...signSlackRequest(SECRET, big) }, body: big });
    expect(response.status).toBe(413);
    expect(received).toHaveLength(0);
  });

  it("answers Slack's URL verification and SSL check itself", async () => {
    const { url, received } = await startReceiver();
    const challenge = JSON.stringify({ type: 'url_verification', challenge: 'ch-42', token: 't' });
    const verification = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...signSlackRequest(SECRET, challenge) }, body: challenge });
    expect(await verification.json()).toEqual({ challenge: 'ch-42' });
    const form = 'ssl_check=1&token=t';
    const headers = { 'content-type': 'application/x-www-form-urlencoded', ...signSlackRequest(SECRET, form) };
    expect((await fetch(url, { method: 'POST', headers, body: form })).status).toBe(200);
    expect(received).toHaveLength(0);
  });

  it('serves /healthz from the main thread, and reports an event loop that does not answer', async () => {
    const healthy = await startReceiver(undefined, { health: async () => ({ status: 503, body: { ok: false, error: 'database unreachable' } }) });
    const report = await fetch(`http://127.0.0.1:${healthy.port}/healthz`);
    expect({ status: report.status, body: await report.json() }).toEqual({ status: 503, body: { ok: false, error: 'database unreachable' } });

    const wedged = await startReceiver(undefined, { health: () => new Promise(() => {}), healthTimeoutMs: 200 });
    const silent = await fetch(`http://127.0.0.1:${wedged.port}/healthz`);
    expect({ status: silent.status, body: await silent.json() }).toEqual({ status: 503, body: { ok: false, error: 'event loop not responding' } });
    expect((await fetch(`http://127.0.0.1:${wedged.port}/elsewhere`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${wedged.port}/slack/events`)).status).toBe(405);
  });

  it('on stop, hands Bolt every event it acknowledged before stop() resolves', async () => {
    let processed = 0;
    const receiver = await startReceiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      processed += 1;
    });
    const posts = await Promise.all(Array.from({ length: 20 }, () => postSlackEvent(receiver.url, SECRET, mention)));
    expect(posts.every((post) => post.status === 200)).toBe(true);
    await receiver.stop();
    expect(processed).toBe(20);
    await expect(fetch(receiver.url, { method: 'POST' })).rejects.toThrow();
  });

  it('says which port is taken when it cannot listen', async () => {
    const first = await startReceiver();
    const second = createThreadedHttpReceiver({ signingSecret: SECRET, logger: createLogger({ level: 'error', write: () => {} }), health: async () => ({ status: 200, body: {} }) });
    second.init({} as App);
    await expect(second.start(first.port)).rejects.toThrow(`Could not listen on port ${first.port} (EADDRINUSE)`);
  });
});

describe('the threaded HTTP receiver with a delivery journal', () => {
  /** A stand-in for the database's query port: records each insert, answering only when `answer` says so. */
  function journalPort(answer: (rows: unknown[]) => 'ok' | 'fail' | 'never' | Promise<'ok'>) {
    const inserts: Array<Array<{ id: string; receivedBy: string; body: { event_id: string } }>> = [];
    const ports: MessagePort[] = [];
    return {
      inserts,
      close: () => ports.forEach((port) => port.close()),
      journal: {
        sql: 'insert …',
        receivedBy: 'replica-1',
        timeoutMs: 500,
        openPort() {
          const { port1, port2 } = new MessageChannel();
          ports.push(port1);
          port1.on('message', async ({ id, params }: { id: number; params: [string] }) => {
            const rows = JSON.parse(params[0]) as (typeof inserts)[number];
            inserts.push(rows);
            const verdict = await answer(rows);
            if (verdict === 'ok') port1.postMessage({ id, ok: true });
            else if (verdict === 'fail') port1.postMessage({ id, ok: false, error: { message: 'database is down' } });
          });
          return port2;
        },
      },
    };
  }

  it('answers 200 only once the delivery is recorded, and hands Bolt its record id', async () => {
    const port = journalPort(() => 'ok');
    const delivered: string[] = [];
    try {
      const { url, received } = await startReceiver(undefined, { journal: port.journal, onDelivered: (id) => delivered.push(id) });
      const response = await postSlackEvent(url, SECRET, mention, { eventId: 'Ev0RECORDED' });
      expect(response.status).toBe(200);
      // Recorded before the 200 went out: the insert is there by the time the client has its answer.
      expect(port.inserts.flat()).toEqual([expect.objectContaining({ receivedBy: 'replica-1', body: expect.objectContaining({ event_id: 'Ev0RECORDED' }) })]);
      await expect.poll(() => received.length).toBe(1);
      const recordId = port.inserts[0]![0]!.id;
      expect(received[0]!.customProperties).toEqual({ deliveryId: recordId });
      await expect.poll(() => delivered).toEqual([recordId]);
    } finally {
      port.close();
    }
  });

  it('still acknowledges a delivery the database cannot record (down, or too slow), unrecorded, with one error line', async () => {
    let verdict: 'fail' | 'never' = 'fail';
    const port = journalPort(() => verdict);
    try {
      const { url, received, logs } = await startReceiver(undefined, { journal: port.journal });
      expect((await postSlackEvent(url, SECRET, mention, { eventId: 'Ev0REFUSED' })).status).toBe(200);
      verdict = 'never';
      const started = Date.now();
      expect((await postSlackEvent(url, SECRET, mention, { eventId: 'Ev0SLOW' })).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(450); // waited for the journal's 500 ms budget, not Slack's 3 s
      await expect.poll(() => received.length).toBe(2);
      expect(received.map((event) => event.customProperties)).toEqual([{}, {}]);
      expect(logs.filter((line) => line.includes('could not record deliveries from Slack'))).toHaveLength(1);
    } finally {
      port.close();
    }
  });

  describe('and a journal file (the embedded database)', () => {
    const dirs: string[] = [];
    afterEach(() => {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    });
    const dataDir = () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'threadwise-receiver-journal-'));
      dirs.push(dir);
      return dir;
    };

    it('answers 200 once the delivery is in the file, without waiting for the database, and moves it in before Bolt sees it', async () => {
      const dir = path.join(dataDir(), 'deliveries');
      let release: () => void = () => {};
      const held = new Promise<'ok'>((resolve) => (release = () => resolve('ok')));
      // The database answers only once the test says so.
      const port = journalPort(() => held);
      try {
        const { url, received, stop } = await startReceiver(undefined, { journal: { ...port.journal, dir, timeoutMs: 5_000 } });
        expect((await postSlackEvent(url, SECRET, mention, { eventId: 'Ev0ONDISK' })).status).toBe(200);
        // Acknowledged with the database still silent: the delivery is on disk, and Bolt has not seen it.
        expect(readLeftoverDeliveries(dir).deliveries).toEqual([expect.objectContaining({ receivedBy: 'replica-1', body: expect.objectContaining({ event_id: 'Ev0ONDISK' }) })]);
        expect(received).toHaveLength(0);
        release();
        await expect.poll(() => received.length).toBe(1);
        const { id } = readLeftoverDeliveries(dir).deliveries[0]!;
        expect(received[0]!.customProperties).toEqual({ deliveryId: id });
        // Everything in the file got into the database: a clean stop leaves no file behind.
        await stop();
        expect(readLeftoverDeliveries(dir)).toEqual({ deliveries: [], files: [] });
      } finally {
        port.close();
      }
    });

    it('keeps in the file what the database refused, for the next start, and still hands it to Bolt', async () => {
      const dir = path.join(dataDir(), 'deliveries');
      const port = journalPort(() => 'fail');
      try {
        const { url, received, stop } = await startReceiver(undefined, { journal: { ...port.journal, dir } });
        expect((await postSlackEvent(url, SECRET, mention, { eventId: 'Ev0KEPT' })).status).toBe(200);
        await expect.poll(() => received.length).toBe(1);
        expect(received[0]!.customProperties).toEqual({});
        await stop();
        expect(readLeftoverDeliveries(dir).deliveries.map((d) => d.body.event_id)).toEqual(['Ev0KEPT']);
      } finally {
        port.close();
      }
    });

    it('records in the database before the 200 when the journal cannot be opened, with one line saying what to check', async () => {
      const notADirectory = path.join(dataDir(), 'deliveries');
      writeFileSync(notADirectory, 'a file where the journal folder should be');
      const port = journalPort(() => 'ok');
      try {
        const { url, received, logs } = await startReceiver(undefined, { journal: { ...port.journal, dir: notADirectory } });
        expect((await postSlackEvent(url, SECRET, mention, { eventId: 'Ev0FALLBACK' })).status).toBe(200);
        expect(port.inserts.flat()).toEqual([expect.objectContaining({ body: expect.objectContaining({ event_id: 'Ev0FALLBACK' }) })]);
        await expect.poll(() => received.length).toBe(1);
        expect(logs.filter((line) => line.includes('could not open the delivery journal') && line.includes('DATA_DIR is writable'))).toHaveLength(1);
      } finally {
        port.close();
      }
    });
  });
});
