/**
 * A TCP proxy in front of PostgreSQL with an off switch: `down()` cuts every open connection and stops listening,
 * so new connections are refused as they are while a database restarts; `up()` listens on the same port again.
 * `silence()` keeps every connection open and forwards nothing more, either way: a half-open server after a network
 * partition, or a hung proxy. `downAtNextFirstQuery()` lets the next new connection through its start-up and goes
 * down the moment it sends its first query: a database that goes away just as a pool opens a connection.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  silence(): void;
  downAtNextFirstQuery(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let silent = false;
  let cutNextConnection = false;
  const server: Server = createServer((client) => {
    const upstream = createConnection(target.port, target.host);
    const cut = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    sockets.add(client);
    sockets.add(upstream);
    client.on('error', cut).on('close', cut);
    upstream.on('error', cut).on('close', cut);
    // Forwarded chunk by chunk (not piped), so that silence() can swallow what is in flight from then on.
    // The client's first chunk is its start-up message (trust auth asks nothing more); the next one is a query.
    const cutThisOne = cutNextConnection;
    cutNextConnection = false;
    let chunksFromClient = 0;
    client.on('data', (chunk) => {
      chunksFromClient += 1;
      if (cutThisOne && chunksFromClient === 2) return void stop();
      if (!silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => silent || client.write(chunk));
  });
  const listenOn = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listenOn(0);
  const port = (server.address() as AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  return {
    port,
    down: stop,
    async up() {
      silent = false;
      if (!server.listening) await listenOn(port);
    },
    silence() {
      silent = true;
    },
    downAtNextFirstQuery() {
      cutNextConnection = true;
    },
    close: stop,
  };
}
