/**
 * The DuckDB process's entry (started by table-engine.ts with child_process.fork). Plain JavaScript because a
 * forked process does not inherit tsx's loader from the app (and under vitest there is none): it registers tsx to
 * load the TypeScript host, then unregisters it. Settings arrive as JSON in argv[2].
 */
import { setPriority } from 'node:os';
import { register } from 'tsx/esm/api';
import { BACKGROUND_NICENESS } from '../runtime/thread-priority.mjs';

// Queries are background work next to answering Slack: lower this process's priority before DuckDB starts its
// threads (they inherit it), so a heavy GROUP BY yields the cores to the bot.
try {
  setPriority(0, BACKGROUND_NICENESS);
} catch {
  // Not permitted here (some containers): run at normal priority.
}

const unregister = register();
const { serveTableEngine } = await import('./engine-host.ts');
unregister();

const settings = JSON.parse(process.argv[2] ?? '{}');
const handle = serveTableEngine(settings, (reply) => process.send?.(reply));
process.on('message', (request) => handle(request));
// The app closing the channel (exit, crash) ends this process too: nothing of it outlives the bot.
process.on('disconnect', () => process.exit(0));
process.send?.({ id: 0, type: 'done', value: null });
