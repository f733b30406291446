import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveDocument } from '../../src/documents/document-store';
import { createHashingEmbedder, createSearcher, indexDocument, type Embedder } from '../../src/search';
import { SEARCH_INDEX_VERSION } from '../../src/search/index-document';
import { rowsOf, type DatabaseHandle } from '../../src/store/database';
import { chunks, documents } from '../../src/store/schema';
import { testDatabases } from '../support/databases';
import { filler, pagedDocument } from './support/documents';

describe.each(testDatabases())('indexDocument on $label', (database) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await database.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  const report = pagedDocument([filler('budgets', 40), filler('hiring plans', 70), 'Appendix: contacts.']);
  const chunksOf = (hash: string) =>
    handle.db.select().from(chunks).where(eq(chunks.contentHash, hash)).orderBy(chunks.ordinal);

  it('needs the extraction stored first, and says so', async () => {
    await expect(indexDocument(handle.db, 'no-such-hash', report)).rejects.toThrow(/no-such-hash.*no documents row/);
  });

  it('stores chunks with their pages and offsets once, and marks the document indexed', async () => {
    await saveDocument(handle.db, 'report-v1', { document: report });

    const first = await indexDocument(handle.db, 'report-v1', report);
    const second = await indexDocument(handle.db, 'report-v1', report);

    expect(first).toMatchObject({ alreadyIndexed: false, embedded: 0 });
    expect(second).toEqual({ alreadyIndexed: true, chunks: first.chunks, embedded: 0 });
    const rows = await chunksOf('report-v1');
    expect(rows.map((r) => r.ordinal)).toEqual(rows.map((_, i) => i));
    expect(new Set(rows.map((r) => r.page))).toEqual(new Set([1, 2, 3]));
    expect(rows.every((r) => report.text.slice(r.startOffset, r.endOffset) === r.text)).toBe(true);
    const [doc] = await handle.db.select().from(documents).where(eq(documents.contentHash, 'report-v1'));
    expect(doc!.indexedAt).toBeInstanceOf(Date);
  });

  it('indexes a word hyphenated at a line end joined as well, and keeps the text as it is', async () => {
    const wrapped = pagedDocument(['The authors report the compu-\ntation of feed-\nforward networks.']);
    await saveDocument(handle.db, 'wrapped', { document: wrapped });
    await indexDocument(handle.db, 'wrapped', wrapped);

    const [row] = await chunksOf('wrapped');
    expect(row!.text).toContain('compu-\ntation');
    const lexemes = await handle.db.execute(sql`select tsvector_to_array(tsv)::text as lexemes from chunks where content_hash = 'wrapped'`);
    const list = rowsOf<{ lexemes: string }>(lexemes)[0]!.lexemes;
    expect(list).toMatch(/\bcompu\b/);
    expect(list).toMatch(/\bcomput\b/);
    expect(list).toMatch(/\bfeed-forward\b/);
    expect(list).toMatch(/\bfeedforward\b/);
  });

  it('lets two replicas index the same document at once without duplicates or errors', async () => {
    await saveDocument(handle.db, 'report-race', { document: report });

    const results = await Promise.all([
      indexDocument(handle.db, 'report-race', report),
      indexDocument(handle.db, 'report-race', report),
    ]);

    const rows = await chunksOf('report-race');
    expect(rows).toHaveLength(results[0].chunks);
    expect(new Set(rows.map((r) => r.ordinal)).size).toBe(rows.length);
  });

  it('completes an indexing that stopped half-way', async () => {
    await saveDocument(handle.db, 'report-crash', { document: report });
    const { chunks: total } = await indexDocument(handle.db, 'report-crash', report);
    // What a process dying between inserts leaves behind: some chunks, no indexed_at.
    const rows = await chunksOf('report-crash');
    await handle.db.delete(chunks).where(eq(chunks.id, rows.at(-1)!.id));
    await handle.db.update(documents).set({ indexedAt: null }).where(eq(documents.contentHash, 'report-crash'));

    await indexDocument(handle.db, 'report-crash', report);

    expect(await chunksOf('report-crash')).toHaveLength(total);
  });

  /** What an earlier version of the index left: chunks indexed under other words, and no version on the document. */
  async function indexedByAnEarlierVersion(hash: string) {
    await handle.db.execute(sql`update chunks set tsv = to_tsvector('simple', 'stale') where content_hash = ${hash}`);
    await handle.db.update(documents).set({ indexVersion: null }).where(eq(documents.contentHash, hash));
  }

  it('rebuilds an index an earlier version built, and keeps the embeddings of the chunks whose text is unchanged', async () => {
    const hashing = createHashingEmbedder();
    let embeddedTexts = 0;
    const counting: Embedder = { model: hashing.model, embed: (texts, signal) => ((embeddedTexts += texts.length), hashing.embed(texts, signal)) };
    await saveDocument(handle.db, 'report-old', { document: report });
    const first = await indexDocument(handle.db, 'report-old', report, { embedder: counting });
    expect(first.embedded).toBe(first.chunks);
    const before = await chunksOf('report-old');
    await indexedByAnEarlierVersion('report-old');
    embeddedTexts = 0;

    const result = await indexDocument(handle.db, 'report-old', report, { embedder: counting });

    expect(result).toEqual({ alreadyIndexed: false, rebuilt: true, chunks: first.chunks, embedded: 0 });
    expect(embeddedTexts).toBe(0);
    const after = await chunksOf('report-old');
    expect(after.map((c) => [c.ordinal, c.text, c.embedding])).toEqual(before.map((c) => [c.ordinal, c.text, c.embedding]));
    expect(after.every((c) => !c.tsv.includes('stale'))).toBe(true);
    const [doc] = await handle.db.select().from(documents).where(eq(documents.contentHash, 'report-old'));
    expect(doc!.indexVersion).toBe(SEARCH_INDEX_VERSION);
    // Current now: asked again, it is left as it is.
    expect(await indexDocument(handle.db, 'report-old', report)).toMatchObject({ alreadyIndexed: true, chunks: first.chunks });
  });

  it('rebuilds a document indexed by an earlier version when it is searched, and finds what the new index finds', async () => {
    await saveDocument(handle.db, 'report-search', { document: report });
    await indexDocument(handle.db, 'report-search', report);
    await indexedByAnEarlierVersion('report-search');
    const search = createSearcher({ db: handle.db });
    const files = [{ id: 'F1', name: 'report.pdf', mimeType: 'application/pdf', fileType: 'pdf', sizeBytes: 1_000, messageTs: '1700000000.000100' }];

    const hits = await search({ files, contentHashes: new Map([['F1', 'report-search']]), query: 'hiring plans', limit: 3 });

    expect(hits[0]).toMatchObject({ fileId: 'F1', page: 2 });
    const [doc] = await handle.db.select().from(documents).where(eq(documents.contentHash, 'report-search'));
    expect(doc!.indexVersion).toBe(SEARCH_INDEX_VERSION);
  });

  it('lets two replicas rebuild the same document at once: one rebuilds, the other finds it done', async () => {
    await saveDocument(handle.db, 'report-rebuild-race', { document: report });
    const { chunks: total } = await indexDocument(handle.db, 'report-rebuild-race', report);
    await indexedByAnEarlierVersion('report-rebuild-race');

    const results = await Promise.all([
      indexDocument(handle.db, 'report-rebuild-race', report),
      indexDocument(handle.db, 'report-rebuild-race', report),
    ]);

    expect(results.filter((r) => r.rebuilt)).toHaveLength(1);
    const rows = await chunksOf('report-rebuild-race');
    expect(rows).toHaveLength(total);
    expect(rows.every((c) => !c.tsv.includes('stale'))).toBe(true);
  });

  it('keeps the chunks searchable when embedding fails, and reports why', async () => {
    await saveDocument(handle.db, 'report-embed-down', { document: report });
    const unreachable: Embedder = {
      model: 'text-embedding-3-small',
      embed: async () => {
        throw new Error('Embedding 3 texts with text-embedding-3-small failed: connect ECONNREFUSED');
      },
    };

    const result = await indexDocument(handle.db, 'report-embed-down', report, { embedder: unreachable });

    expect(result.embeddingError).toMatch(/ECONNREFUSED/);
    expect((await chunksOf('report-embed-down')).length).toBe(result.chunks);
  });
});
