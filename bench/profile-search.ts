/**
 * `node --import tsx bench/profile-search.ts`: indexes the 117-page corpus PDF in an on-disk PGlite (as the search
 * bench does) and times each search for the bench's latency questions, with a CPU profile: the statements the
 * searcher still sends (findUnindexed once, the document's index once, stemming new query words), timed as the
 * database runs them, wrapped around db.execute / select; the ranking, rerank and snippets run in this thread.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { saveDocument } from '../src/documents/document-store';
import { createSearcher, indexDocument } from '../src/search';
import type { ThreadFile } from '../src/core/thread-file';
import { openDatabase } from '../src/app/database/open-database';
import { extractCorpusFiles } from '../test/support/corpus';
import { loadParaphrasedSet, loadRetrievalSet } from '../test/search/support/retrieval-set';

const FILE = 'GeoTopo-komprimiert.pdf';
const documents = await extractCorpusFiles([FILE]);
const dataDir = await mkdtemp(path.join(tmpdir(), 'threadwise-profile-search-'));
const handle = await openDatabase({ driver: 'pglite', dataDir });
try {
  await saveDocument(handle.db, 'h', { document: documents.get(FILE)! });
  await indexDocument(handle.db, 'h', documents.get(FILE)!);
  const file: ThreadFile = { id: 'F1', name: FILE, mimeType: '', fileType: 'pdf', sizeBytes: 0, messageTs: '1.1' };
  const search = createSearcher({ db: handle.db });
  const queries = [...loadRetrievalSet(), ...loadParaphrasedSet()].filter((q) => q.file === FILE).map((q) => q.question);
  // Every statement the searcher sends, timed: drizzle's query builders end in the session's execute/all.
  const statements = new Map<string, number[]>();
  const db = handle.db as unknown as { session: Record<string, unknown> };
  const session = db.session as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of ['execute', 'all', 'values']) {
    const original = session[method];
    if (typeof original !== 'function') continue;
    session[method] = async function (this: unknown, ...args: unknown[]) {
      const started = performance.now();
      try {
        return await original.apply(this, args);
      } finally {
        const text = JSON.stringify(args[0] ?? '').slice(0, 60);
        statements.set(text, [...(statements.get(text) ?? []), performance.now() - started]);
      }
    };
  }
  for (const query of queries) await search({ files: [file], contentHashes: new Map([['F1', 'h']]), query, limit: 5 });
  statements.clear();
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
  await inspector.post('Profiler.start');
  const totals: number[] = [];
  const cpu = process.cpuUsage();
  for (let round = 0; round < 5; round++) {
    for (const query of queries) {
      const started = performance.now();
      await search({ files: [file], contentHashes: new Map([['F1', 'h']]), query, limit: 5 });
      totals.push(performance.now() - started);
    }
  }
  const used = process.cpuUsage(cpu);
  const { profile } = await inspector.post('Profiler.stop');
  writeFileSync(process.env.PROFILE_OUT ?? '/tmp/search.cpuprofile', JSON.stringify(profile));
  totals.sort((a, b) => a - b);
  console.log(`load average ${loadavg()[0]!.toFixed(1)}; ${totals.length} searches, p50 ${totals[Math.floor(totals.length / 2)]!.toFixed(1)} ms, p95 ${totals[Math.floor(totals.length * 0.95)]!.toFixed(1)} ms, ${((used.user + used.system) / 1000 / totals.length).toFixed(1)} ms CPU each`);
  for (const [text, times] of [...statements].sort((a, b) => b[1].reduce((x, y) => x + y) - a[1].reduce((x, y) => x + y))) {
    times.sort((a, b) => a - b);
    console.log(`  ${String(times.length).padStart(4)}×  p50 ${times[Math.floor(times.length / 2)]!.toFixed(2).padStart(6)} ms  total ${times.reduce((x, y) => x + y).toFixed(0).padStart(5)} ms  ${text}`);
  }
} finally {
  await handle.close();
  await rm(dataDir, { recursive: true, force: true });
}
