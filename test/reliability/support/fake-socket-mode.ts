/**
 * Slack's Socket Mode, faked over real WebSockets for the real SocketModeClient inside Bolt: an HTTP front for the
 * fake Slack that answers `apps.connections.open` with a ws:// URL (every other Web API call passes through), and
 * a minimal RFC 6455 server behind it that says hello, answers pings, delivers event envelopes (with
 * `retry_attempt`, as Slack redelivers an unacknowledged event, possibly on another connection) and collects acks.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { listen, readBody, sendJson } from '../../fakes/http';

interface SocketModeConnection {
  id: number;
  /** Envelope ids acknowledged on this connection. */
  acked: string[];
}

export interface FakeSocketMode {
  /** SLACK_API_URL for the app: apps.connections.open here, the rest forwarded to the fake Slack. */
  apiUrl: string;
  connections: SocketModeConnection[];
  /** Resolves once `count` clients completed the hello handshake. */
  waitForConnections(count: number, timeoutMs?: number): Promise<void>;
  /**
   * Sends an events_api envelope carrying `event` on one connection; resolves with the envelope id once the client
   * acknowledged it. The same `eventId` with `retryAttempt` > 0 is Slack's redelivery.
   */
  deliver(connection: number, event: object, options: { eventId: string; teamId: string; retryAttempt?: number }): Promise<string>;
  close(): Promise<void>;
}

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export async function startFakeSocketMode(slackOrigin: string): Promise<FakeSocketMode> {
  const sockets: Duplex[] = [];
  const connections: SocketModeConnection[] = [];
  const ackWaiters = new Map<string, () => void>();
  const changed = new Set<() => void>();
  const notify = () => {
    for (const listener of changed) listener();
  };

  const front = await listen(async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (req.url?.endsWith('/apps.connections.open')) {
      return sendJson(res, 200, { ok: true, url: `ws://127.0.0.1:${port()}/link/?ticket=${randomUUID()}` });
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host' && entry[0] !== 'content-length'),
    );
    const reply = await fetch(`${slackOrigin}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : new Uint8Array(body) });
    res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await reply.arrayBuffer()));
  }, 'fake-socket-mode');
  const port = () => Number(new URL(front.origin).port);

  front.server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const key = req.headers['sec-websocket-key'];
    if (typeof key !== 'string') return socket.destroy();
    const accept = createHash('sha1').update(key + WEBSOCKET_GUID).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    sockets.push(socket);
    const connection: SocketModeConnection = { id: connections.length, acked: [] };
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let frame = readFrame(pending); frame; frame = readFrame(pending)) {
        pending = pending.subarray(frame.length);
        if (frame.opcode === 0x9) socket.write(encodeFrame(0xa, frame.payload)); // ping → pong
        else if (frame.opcode === 0x8) socket.end(encodeFrame(0x8, Buffer.alloc(0)));
        else if (frame.opcode === 0x1) {
          const message = JSON.parse(frame.payload.toString('utf8')) as { envelope_id?: string };
          if (message.envelope_id) {
            connection.acked.push(message.envelope_id);
            ackWaiters.get(message.envelope_id)?.();
          }
        }
      }
    });
    socket.on('error', () => {});
    socket.write(encodeFrame(0x1, Buffer.from(JSON.stringify({ type: 'hello', num_connections: connections.length + 1, debug_info: { host: 'fake' } }))));
    connections.push(connection);
    notify();
  });

  const waitFor = (condition: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        changed.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        changed.delete(check);
        reject(new Error(`fake Socket Mode: ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      changed.add(check);
      check();
    });

  return {
    apiUrl: `${front.origin}/api/`,
    connections,
    waitForConnections: (count, timeoutMs = 15_000) => waitFor(() => connections.length >= count, timeoutMs, `no ${count} connections`),
    deliver(connection, event, { eventId, teamId, retryAttempt = 0 }) {
      const socket = sockets[connection];
      if (!socket) throw new Error(`fake Socket Mode: no connection ${connection}`);
      const envelopeId = randomUUID();
      const envelope = {
        envelope_id: envelopeId,
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: retryAttempt,
        retry_reason: retryAttempt > 0 ? 'timeout' : '',
        payload: {
          token: 'fake-verification-token',
          team_id: teamId,
          api_app_id: 'A0FAKEAPP',
          event,
          type: 'event_callback',
          event_id: eventId,
          event_time: Math.floor(Date.now() / 1000),
        },
      };
      const acked = new Promise<string>((resolve) => ackWaiters.set(envelopeId, () => resolve(envelopeId)));
      socket.write(encodeFrame(0x1, Buffer.from(JSON.stringify(envelope))));
      return acked;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await front.close();
    },
  };
}

/** One unfragmented frame from the start of `data` (clients mask theirs), or undefined if it is not all there yet. */
function readFrame(data: Buffer): { opcode: number; payload: Buffer; length: number } | undefined {
  if (data.length < 2) return undefined;
  const opcode = data[0]! & 0x0f;
  const masked = (data[1]! & 0x80) !== 0;
  let length = data[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (data.length < 4) return undefined;
    length = data.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (data.length < 10) return undefined;
    length = Number(data.readBigUInt64BE(2));
    offset = 10;
  }
  const maskOffset = offset;
  if (masked) offset += 4;
  if (data.length < offset + length) return undefined;
  const payload = Buffer.from(data.subarray(offset, offset + length));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ data[maskOffset + (i % 4)]!;
  return { opcode, payload, length: offset + length };
}

function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const head =
    payload.length < 126
      ? Buffer.from([0x80 | opcode, payload.length])
      : payload.length < 65_536
        ? Buffer.from([0x80 | opcode, 126, payload.length >> 8, payload.length & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), bigEndian64(payload.length)]);
  return Buffer.concat([head, payload]);
}

function bigEndian64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}
