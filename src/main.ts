/**
 * `npm start`: validate the environment, start threadwise, stop gracefully on SIGTERM/SIGINT.
 * Every start-up problem is one line on stderr naming what to fix, and a non-zero exit — never a stack trace.
 */
import { loadConfig } from './config';
import { startThreadwise, StartupError } from './app';

const loaded = loadConfig(process.env);
if (!loaded.ok) {
  for (const problem of loaded.problems) process.stderr.write(`threadwise: ${problem}\n`);
  process.exit(1);
}

try {
  const running = await startThreadwise(loaded.config);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`threadwise: ${signal} received; finishing answers in progress (up to ${loaded.config.shutdownGraceMs / 1000} s)…\n`);
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
  const message =
    error instanceof StartupError
      ? error.message
      : `could not start: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`threadwise: ${message}\n`);
  process.exit(1);
}
