/**
 * `npm start`: validate the environment, start threadwise, stop gracefully on SIGTERM/SIGINT.
 * Every start-up problem is one line on stderr naming what to fix, and a non-zero exit — never a stack trace.
 */
import { loadConfig, loadEnvFile, redactUrlCredentials } from './config';
import { openEmbeddedDatabaseEarly } from './app/database/early-pglite';
import { StartupError } from './app/startup-error';
import { lowerHelperThreadsPriority } from './runtime/thread-priority.mjs';
import { messageOf } from './core/errors';
import { deferWasmOptimisationDuringStart } from './runtime/wasm-tiering';

// Before the embedded database's WebAssembly is compiled (runtime/wasm-tiering.ts says why).
const startIsOver = deferWasmOptimisationDuringStart();

// .env in the working directory (npm runs scripts in the project folder); what the environment already sets wins.
const envFile = loadEnvFile();
if (!envFile.ok) {
  process.stderr.write(`threadwise: ${envFile.problem}\n`);
  process.exit(1);
}
const loaded = loadConfig(process.env);
if (!loaded.ok) {
  for (const problem of loaded.problems) process.stderr.write(`threadwise: ${problem}\n`);
  process.exit(1);
}

// Before any worker exists: the event loop answers Slack first, V8's and libuv's helpers get what it leaves.
lowerHelperThreadsPriority();

// An embedded database that exists starts opening on its own thread while the app's modules load (a second each).
if (!loaded.config.storage.databaseUrl) openEmbeddedDatabaseEarly(loaded.config.storage.dataDir);

try {
  const { startThreadwise } = await import('./app/index');
  const running = await startThreadwise(loaded.config, {
    // Test-only (test/reliability/acknowledged-questions.test.ts): die right after a 200, before the run row exists.
    killAfterAckForTests: process.env.THREADWISE_TEST_KILL_AFTER_ACK === '1',
    // One human line per stage while it starts: what it is doing, and what it found that does not stop it.
    say: (sentence, level) => process.stderr.write(`threadwise: ${level === 'warn' ? 'warning: ' : ''}${sentence}\n`),
    // Test-only (test/reliability/scheduled-task-kill.test.ts): die while claiming a due task's occurrence.
    killInTaskClaimForTests: taskKillPoint(process.env.THREADWISE_TEST_KILL_IN_TASK_CLAIM),
  });
  startIsOver();
  const where = loaded.config.slack.mode === 'http' ? `Slack events at http://localhost:${running.port}/slack/events, ` : 'Socket Mode, ';
  const consoleLine = running.consoleUrl ? `, the console at ${running.consoleUrl}` : '';
  process.stderr.write(`threadwise is running: ${where}health at http://localhost:${running.port}/healthz${consoleLine} (started in ${process.uptime().toFixed(1)} s)\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      // A second signal means "now": whatever is unfinished is resumed by the next start.
      process.stderr.write(`threadwise: ${signal} received again; exiting now, unfinished answers resume on the next start\n`);
      process.exit(1);
    }
    stopping = true;
    const graceMs = loaded.config.shutdownGraceMs;
    process.stderr.write(`threadwise: ${signal} received; finishing answers in progress (up to ${graceMs / 1000} s)…\n`);
    // stop() keeps to the grace period; this is the net under it if something hangs (a stuck socket, a closing pool).
    setTimeout(() => {
      process.stderr.write('threadwise: shutdown took too long; exiting, unfinished answers resume on the next start\n');
      process.exit(1);
    }, graceMs + 10_000).unref();
    running.stop(graceMs).then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`threadwise: error while stopping: ${messageOf(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
  const message =
    error instanceof StartupError
      ? error.message
      : `could not start: ${messageOf(error)}`;
  // One line, and never a credential: driver messages may quote the URL they were given.
  process.stderr.write(`threadwise: ${redactUrlCredentials(message).split('\n')[0]}\n`);
  process.exit(1);
}

function taskKillPoint(value: string | undefined): 'before_run_row' | 'after_run_row' | undefined {
  return value === 'before_run_row' || value === 'after_run_row' ? value : undefined;
}
