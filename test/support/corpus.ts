/**
 * The corpus tier: tests over real documents written by others, for their real-world quirks. The corpus stays
 * outside the repository, in CORPUS_DIR (default ../shared/corpus beside it), read in place, never copied;
 * evals/fixtures/corpus-sources.tsv says where each file comes from. Such tests sit under a describe named
 * "corpus: …" that runs only where the corpus is (`describe.runIf(corpus.present)`); where it is not, the run ends
 * with one line saying so (test/support/corpus-reporter.ts). Tests that only need *a* document of a kind use the
 * generated ones instead (test/support/fixtures).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createDocumentExtractor } from '../../src/documents';
import type { ExtractedDocument } from '../../src/core/thread-file';
import { corpusDirectory, isCorpusAt } from '../../evals/fixtures/corpus';

const dir = corpusDirectory();
export const corpus = { dir, present: isCorpusAt(dir) };
/** The same, by the names the benches use. */
export const corpusDir = corpus.dir;

/** The corpus is here, with every named file. */
export function hasCorpus(...names: string[]): boolean {
  return corpus.present && names.every((name) => existsSync(path.join(dir, name)));
}

export function corpusPath(name: string): string {
  return path.join(dir, name);
}

/** A corpus file as a fresh Uint8Array that owns its buffer, the way a download hands it over. */
export async function readCorpusFile(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(corpusPath(name)));
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
