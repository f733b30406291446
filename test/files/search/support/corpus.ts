/**
 * The shared corpus of real documents (../shared/corpus beside the repo). Tests and the bench read it in place,
 * never copy it, and skip with a visible note when it is not there.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDocumentExtractor } from '../../../../src/files/extract';
import type { ExtractedDocument } from '../../../../src/files/types';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const corpusDir = path.resolve(repoRoot, '../shared/corpus');

export function hasCorpus(...names: string[]): boolean {
  return existsSync(corpusDir) && names.every((name) => existsSync(path.join(corpusDir, name)));
}

/** Says once, in the test output, why corpus tests did not run. */
export function noteMissingCorpus(what: string): void {
  console.warn(`[skipped] ${what}: the corpus folder ${corpusDir} is not here (see DESIGN.md § Testing).`);
}

/** Extracts corpus files with the real extractor (worker threads), a few at a time, by file name. */
export async function extractCorpusFiles(names: string[]): Promise<Map<string, ExtractedDocument>> {
  // Generous: a loaded CI machine may take minutes over the 1 MB HTML page, and this measures search, not extraction.
  const extractor = createDocumentExtractor({ maxThreads: 2, timeoutMs: 300_000 });
  try {
    const entries = await Promise.all(
      names.map(async (name) => {
        const bytes = new Uint8Array(await readFile(path.join(corpusDir, name)));
        return [name, await extractor.extract({ bytes, name })] as const;
      }),
    );
    return new Map(entries);
  } finally {
    await extractor.close();
  }
}
