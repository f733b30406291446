/**
 * The DuckDB process's entry (started by table-engine.ts with child_process.fork). Plain JavaScript because a
 * forked process does not inherit tsx's loader from the app (and under vitest there is none): it registers tsx to
 * load the TypeScript host, then unregisters it. Settings arrive as JSON in argv[2].
 */
import { register } from 'tsx/esm/api';
import { lowerHelperThreadsPriority, lowerThreadPriority } from '../runtime/thread-priority.mjs';

// Queries are background work next to answering Slack: lower this process's threads before DuckDB starts its own
// (they inherit the priority), so a heavy GROUP BY yields the cores to the bot. Counted from what the process
// inherited and only ever lowered, like every other background thread; the helpers first, while the main thread
// still holds the inherited value they are counted from.
lowerHelperThreadsPriority();
lowerThreadPriority();

const unregister = register();
const { serveTableEngine } = await import('./engine-host.ts');
unregister();

const settings = JSON.parse(process.argv[2] ?? '{}');
const handle = serveTableEngine(settings, (reply) => process.send?.(reply));
process.on('message', (request) => handle(request));
// The app closing the channel (exit, crash) ends this process too: nothing of it outlives the bot.
process.on('disconnect', () => process.exit(0));
process.send?.({ id: 0, type: 'done', value: null });
