/**
 * What `npm start` runs, for tests that start threadwise as a real child process: node with the bundle in dist/
 * (scripts/build.mjs). test/support/build-dist.ts, vitest's global setup, rebuilds it first when a source changed,
 * so these tests always run the code under test, the way an operator's start does.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Arguments after `node` (process.execPath) that start the bot: `spawn(process.execPath, botArgs, …)`. */
export const botArgs: readonly string[] = ['--enable-source-maps', path.join(repoRoot, 'dist/main.mjs')];
