import { createServer } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on (fetch refuses "bad ports" such as 1 before connecting). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
