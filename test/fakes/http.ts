/**
 * Small node:http helpers shared by the fakes. Every fake listens on 127.0.0.1 port 0 so that test files can run
 * in parallel without port clashes, and close() must never hang a test run: open keep-alive sockets (the real
 * clients use them) are destroyed rather than waited for.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asError } from '../../src/core/errors';

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export interface Listening {
  server: Server;
  origin: string;
  close(): Promise<void>;
}

export async function listen(handler: Handler, label: string): Promise<Listening> {
  const server = createServer((req, res) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((error: unknown) => {
        // A bug in a fake must be loud, but must not take the test process down with it.
        console.error(`[${label}] handler failed:`, error);
        if (!res.headersSent) sendJson(res, 500, { error: `${label} internal error: ${String(error)}` });
        else res.destroy();
      });
  });
  // Clients keep connections alive; without this, server.close() waits for them.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The whole request body. Large uploads are not a concern for the fakes: clients send small API calls. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType = 'text/plain; charset=utf-8',
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * Resolves once `check()` is true. Checked on every `notify()` (the fake calls it after each request) and on a
 * short poll, so predicates over state that changes outside requests still settle.
 */
export class Waiters {
  private readonly pending = new Set<() => void>();

  notify(): void {
    for (const wake of [...this.pending]) wake();
  }

  wait(check: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const done = (error?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(poll);
        this.pending.delete(wake);
        if (error) reject(error);
        else resolve();
      };
      const wake = () => {
        try {
          if (check()) done();
        } catch (error) {
          done(asError(error));
        }
      };
      const timer = setTimeout(() => done(new Error(`timed out after ${timeoutMs} ms; ${describe()}`)), timeoutMs);
      const poll = setInterval(wake, 25);
      this.pending.add(wake);
      wake();
    });
  }
}
