/**
 * PORT (and CONSOLE_PORT) checked first thing at start, by listening on it and closing again: a port in use is
 * said at once, not after the embedded database was created and Slack was asked. The real server binds it a few
 * seconds later; something taking it in between is still reported then, by the receiver.
 */
import { createServer } from 'node:net';
import { codeOf } from '../core/errors';
import { StartupError } from './startup-error';

export async function checkPortFree(port: number, variable: string, host?: string): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host, exclusive: true }, resolve);
    });
  } catch (error) {
    const code = codeOf(error);
    const where = host ? `${host}:${port}` : `${port}`;
    if (code === 'EADDRINUSE') throw new StartupError(`${variable} ${where} is in use by another process: stop that process, or set ${variable} to a free port.`);
    if (code === 'EACCES') throw new StartupError(`${variable} ${where} needs privileges this user does not have (ports below 1024 do): set ${variable} to 1024 or above, e.g. 3000.`);
    throw new StartupError(`could not listen on ${variable} ${where} (${code ?? 'unknown error'}): set ${variable} to a free port.`);
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
