/**
 * Background threads yield to the event loop: the database's thread and document workers lower their own
 * priority, and at start the main thread lowers V8's and libuv's helpers, never itself. Read back from /proc,
 * so Linux only.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/app/database/open-database';

const onLinux = existsSync('/proc/thread-self');
const module = fileURLToPath(new URL('../../src/runtime/thread-priority.mjs', import.meta.url));
/** Niceness of a thread, field 19 of its stat line (after the parenthesised command name). */
const niceOf = (statPath: string) => Number(readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ')[16]);

describe.skipIf(!onLinux)('thread priorities', () => {
  it('runs the embedded database’s thread 5 steps nicer than the process: below the event loop, above document reading', async () => {
    const base = niceOf('/proc/thread-self/stat');
    const niceness = () => readdirSync('/proc/self/task').map((thread) => niceOf(`/proc/self/task/${thread}/stat`));
    const before = niceness().filter((n) => n === Math.min(19, base + 5)).length;
    const handle = await openDatabase({ driver: 'pglite' });
    try {
      expect(niceness().filter((n) => n === Math.min(19, base + 5)).length).toBe(before + 1);
      expect(niceOf('/proc/thread-self/stat')).toBe(base);
    } finally {
      await handle.close();
    }
  });

  it('lets a worker run itself 10 steps nicer, never less nice than it started, without touching the main thread', async () => {
    const before = niceOf('/proc/thread-self/stat');
    const worker = new Worker(
      `import(${JSON.stringify(module)}).then(({ lowerThreadPriority }) => {
         lowerThreadPriority();
         require('node:worker_threads').parentPort.postMessage(require('node:fs').readFileSync('/proc/thread-self/stat', 'utf8'));
       });`,
      { eval: true },
    );
    const stat = await new Promise<string>((resolve, reject) => worker.once('message', resolve).once('error', reject));
    await worker.terminate();
    expect(Number(stat.split(') ')[1]!.split(' ')[16])).toBe(Math.min(19, before + 10));
    expect(niceOf('/proc/thread-self/stat')).toBe(before);
  });

  it('runs every helper thread of a fresh process at background priority, and the main thread as it was', () => {
    const script = `
      import { lowerHelperThreadsPriority } from ${JSON.stringify(pathToFileURL(module).href)};
      import { readdirSync, readFileSync } from 'node:fs';
      lowerHelperThreadsPriority();
      const nice = (tid) => Number(readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ')[16]);
      console.log(JSON.stringify({ main: nice(process.pid), helpers: readdirSync('/proc/self/task').filter((t) => Number(t) !== process.pid).map(nice) }));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const { main, helpers } = JSON.parse(output.trim().split('\n').at(-1)!) as { main: number; helpers: number[] };
    // Niceness is inherited: the child starts where this process runs (0, unless CI itself runs niced).
    const inherited = niceOf('/proc/thread-self/stat');
    expect(main).toBe(inherited);
    expect(helpers.length).toBeGreaterThanOrEqual(4); // V8's platform threads at least
    expect(new Set(helpers)).toEqual(new Set([Math.min(19, inherited + 10)]));
  });
});
