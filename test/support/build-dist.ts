/**
 * Vitest's global setup: dist/ (what `npm start` and `npm run chat` run) rebuilt from src/ when a source file
 * changed since the last build, once before any test starts, so tests that start the real process never run a
 * stale bundle and never race to build it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function buildDistIfStale(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: fileURLToPath(new URL('../../', import.meta.url)), stdio: 'inherit' });
}
