import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** ../shared/corpus beside the repo: real documents written by others. Tests skip, with a note, without it. */
export const CORPUS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/corpus');
export const HAS_CORPUS = existsSync(CORPUS_DIR);
if (!HAS_CORPUS) console.warn(`note: ${CORPUS_DIR} is missing; tests over the shared corpus are skipped.`);

export function corpusFile(name: string): Buffer {
  return readFileSync(path.join(CORPUS_DIR, name));
}
