/**
 * The shared corpus of real documents written by others (../shared/corpus beside the repo; SOURCES.tsv says what
 * each file is). Tests and benches read it in place, never copy it, and skip with a visible note when it is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDocumentExtractor } from '../../src/documents';
import type { ExtractedDocument } from '../../src/core/thread-file';

export const corpusDir = path.resolve(fileURLToPath(new URL('../../', import.meta.url)), '../shared/corpus');
export const corpusPresent = existsSync(path.join(corpusDir, 'SOURCES.tsv'));

/** The corpus is here, with every named file. */
export function hasCorpus(...names: string[]): boolean {
  return corpusPresent && names.every((name) => existsSync(path.join(corpusDir, name)));
}

/** Says, in the test output, why a suite over the corpus did not run. */
export function warnIfCorpusMissing(suite: string, ...names: string[]): void {
  if (!hasCorpus(...names)) console.warn(`[skipped] ${suite}: no corpus at ${corpusDir} (see DESIGN.md § Testing)`);
}

export function corpusPath(name: string): string {
  return path.join(corpusDir, name);
}

/** A corpus file as a fresh Uint8Array that owns its buffer, the way a download hands it over. */
export async function readCorpusFile(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(corpusPath(name)));
}

export function corpusFile(name: string): Buffer {
  return readFileSync(corpusPath(name));
}

/** Extracts corpus files with the real extractor (worker threads), a few at a time, by file name. */
export async function extractCorpusFiles(names: string[]): Promise<Map<string, ExtractedDocument>> {
  // Generous: a loaded CI machine may take minutes over the 1 MB HTML page, and callers measure search, not this.
  const extractor = createDocumentExtractor({ maxThreads: 2, timeoutMs: 300_000 });
  try {
    const entries = await Promise.all(names.map(async (name) => [name, await extractor.extract({ bytes: await readCorpusFile(name), name })] as const));
    return new Map(entries);
  } finally {
    await extractor.close();
  }
}
