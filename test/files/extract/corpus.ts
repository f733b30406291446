/**
 * The shared corpus of real documents (../shared/corpus beside the repo), read in place. Suites that need it use
 * `describe.skipIf(!corpusPresent)` and say why once, visibly, when it is missing.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const corpusDir = path.resolve(repoRoot, '../shared/corpus');
export const corpusPresent = existsSync(path.join(corpusDir, 'SOURCES.tsv'));

export function warnIfCorpusMissing(suite: string): void {
  if (!corpusPresent) console.warn(`[skipped] ${suite}: no corpus at ${corpusDir} (see DESIGN.md § Testing)`);
}

/** A corpus file as a fresh Uint8Array that owns its buffer, the way a download hands it over. */
export async function readCorpusFile(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(path.join(corpusDir, name)));
}
