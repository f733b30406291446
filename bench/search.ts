/**
 * Search figures over the project's retrieval set (test/fixtures/retrieval-set.json): recall of the first five hits
 * with full text alone and fused with a deterministic embedding, search latency on the 117-page corpus PDF, and
 * indexing time per MB of extracted text. PGlite in an on-disk temp dir, as a single-process deployment runs it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { saveDocument } from '../src/files/file-store';
import { createHashingEmbedder, createSearcher, indexDocument, type Embedder, type Searcher } from '../src/files/search';
import type { ExtractedDocument, ThreadFile } from '../src/core/thread-file';
import { openDatabase } from '../src/app/database/open-database';
import type { DatabaseHandle } from '../src/store/database';
import { extractCorpusFiles, hasCorpus } from '../test/support/corpus';
import { loadRetrievalSet, measureRecall, retrievalFiles } from '../test/files/search/support/retrieval-set';
import type { BenchFigure, BenchSuite } from './figures';

const LATENCY_FILE = 'GeoTopo-komprimiert.pdf';
const LATENCY_ROUNDS = 5;

export const searchSuite: BenchSuite = {
  name: 'search',
  async run() {
    const questions = loadRetrievalSet();
    const names = retrievalFiles(questions);
    if (!hasCorpus(...names)) return unavailable(`the corpus (../shared/corpus) is missing files of the retrieval set`);
    const documents = await extractCorpusFiles(names);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'threadwise-bench-search-'));
    const handle = await openDatabase({ driver: 'pglite', dataDir });
    try {
      return await measure(handle, documents, questions);
    } finally {
      await handle.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};

async function measure(
  handle: DatabaseHandle,
  documents: Map<string, ExtractedDocument>,
  questions: ReturnType<typeof loadRetrievalSet>,
): Promise<BenchFigure[]> {
  const files = [...documents.keys()].map((name, i): ThreadFile => ({
    id: `F${i + 1}`, name, mimeType: '', fileType: name.split('.').pop() ?? '', sizeBytes: 0, messageTs: '1.1',
  }));
  const hashes = new Map(files.map((f) => [f.id, `bench:${f.name}`]));
  const fileNamed = new Map(files.map((f) => [f.name, f]));

  // One small document first, so the tokenizer's and the database's first-use costs do not count as indexing.
  await indexOnce(handle, 'bench:warm-up', { text: 'Warm-up page.', segments: [], outline: [], notes: [] });
  let indexMs = 0;
  let megabytes = 0;
  for (const file of files) {
    const document = documents.get(file.name)!;
    indexMs += await indexOnce(handle, hashes.get(file.id)!, document);
    megabytes += Buffer.byteLength(document.text) / 1_048_576;
  }

  const inFile = (search: Searcher) => (name: string, query: string) =>
    search({ files: [fileNamed.get(name)!], contentHashes: hashes, query, limit: 5 });
  const fullText = inFile(createSearcher({ db: handle.db }));
  const recall = await measureRecall(questions, 5, (q) => fullText(q.file, q.question));

  const latencies: number[] = [];
  const latencyQueries = questions.filter((q) => q.file === LATENCY_FILE).map((q) => q.question);
  for (let round = 0; round < LATENCY_ROUNDS; round += 1) {
    for (const query of latencyQueries) {
      const started = performance.now();
      await fullText(LATENCY_FILE, query);
      latencies.push(performance.now() - started);
    }
  }

  const embedder = createHashingEmbedder();
  for (const file of files) await embedAll(handle, hashes.get(file.id)!, documents.get(file.name)!, embedder);
  const hybrid = inFile(createSearcher({ db: handle.db, embedder }));
  const hybridRecall = await measureRecall(questions, 5, (q) => hybrid(q.file, q.question));

  const missed = recall.misses.map((m) => `${m.question.file}: ${m.question.question}`);
  return [
    { key: 'search.recall_at_5', value: recall.recall, unit: '', target: '≥ 0.9', note: `${questions.length} questions, ${files.length} files${missed.length ? `; missed: ${missed.join(' | ')}` : ''}` },
    { key: 'search.recall_at_5_hybrid', value: hybridRecall.recall, unit: '', note: `full text fused (RRF) with ${embedder.model}, a lexical stand-in with no sense of meaning` },
    { key: 'search.p50_ms', value: percentile(latencies, 0.5), unit: 'ms', target: '< 20', note: `${latencies.length} searches of ${LATENCY_FILE}` },
    { key: 'search.p95_ms', value: percentile(latencies, 0.95), unit: 'ms' },
    { key: 'search.index_ms_per_mb', value: indexMs / megabytes, unit: 'ms/MB', note: `${megabytes.toFixed(2)} MB of extracted text, chunked and stored with tsvectors` },
  ];
}

async function indexOnce(handle: DatabaseHandle, contentHash: string, document: ExtractedDocument): Promise<number> {
  await saveDocument(handle.db, contentHash, { document });
  const started = performance.now();
  await indexDocument(handle.db, contentHash, document);
  return performance.now() - started;
}

async function embedAll(handle: DatabaseHandle, contentHash: string, document: ExtractedDocument, embedder: Embedder) {
  const result = await indexDocument(handle.db, contentHash, document, { embedder });
  if (result.embeddingError) throw new Error(`Embedding ${contentHash} for the hybrid figure failed: ${result.embeddingError}`);
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
}

function unavailable(note: string): BenchFigure[] {
  return ['search.recall_at_5', 'search.recall_at_5_hybrid', 'search.p50_ms', 'search.index_ms_per_mb'].map((key) => ({
    key, value: null, unit: '', note,
  }));
}
