import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { saveDocument } from '../../src/documents/document-store';
import { createSearcher, indexDocument } from '../../src/search';
import { createOpenAIEmbedder } from '../../src/app/openai';
import type { ThreadFile } from '../../src/core/thread-file';
import type { DatabaseHandle } from '../../src/store/database';
import { chunks } from '../../src/store/schema';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { testDatabases } from '../support/databases';
import { filler, pagedDocument } from './support/documents';

const manual = pagedDocument([
  filler('installation steps', 30),
  'Topology of the network: every switch connects to two core routers, so one failure never splits the network.',
  filler('billing and invoices', 30),
  filler('support hours', 20),
]);
const file: ThreadFile = { id: 'F1', name: 'manual.pdf', mimeType: 'application/pdf', fileType: 'pdf', sizeBytes: 5000, messageTs: '1.1' };

describe.each(testDatabases())('embeddings through an OpenAI-compatible endpoint on $label', (database) => {
  let handle: DatabaseHandle;
  let openai: FakeOpenAI;
  beforeAll(async () => {
    [handle, openai] = await Promise.all([database.open(), startFakeOpenAI({ apiKey: 'sk-test' })]);
    await saveDocument(handle.db, 'hash-manual', { document: manual });
  });
  afterAll(async () => {
    await Promise.all([handle?.close(), openai?.close()]);
  });

  const embedderFor = (model: string) =>
    createOpenAIEmbedder({ model, baseURL: openai.url, apiKey: 'sk-test', batchSize: 2 });

  it('embeds every chunk once, in batches, and keeps the vectors with the chunks', async () => {
    const embedder = embedderFor('text-embedding-3-small');

    const result = await indexDocument(handle.db, 'hash-manual', manual, { embedder });
    const again = await indexDocument(handle.db, 'hash-manual', manual, { embedder });

    expect(result.embedded).toBe(result.chunks);
    expect(again.embedded).toBe(0);
    expect(openai.embeddingRequests).toHaveLength(Math.ceil(result.chunks / 2));
    expect(openai.embeddingRequests.every((r) => r.model === 'text-embedding-3-small' && r.input.length <= 2)).toBe(true);
    const rows = await handle.db.select().from(chunks).where(eq(chunks.contentHash, 'hash-manual'));
    expect(rows.every((r) => r.embeddingModel === 'text-embedding-3-small' && r.embedding!.length > 0)).toBe(true);
  });

  it('fuses meaning with full text, so a misspelt query still finds its passage', async () => {
    const embedder = embedderFor('text-embedding-3-small');
    const withEmbeddings = createSearcher({ db: handle.db, embedder });
    const fullTextOnly = createSearcher({ db: handle.db });
    const request = { files: [file], contentHashes: new Map([['F1', 'hash-manual']]), query: 'netwrok topolgy', limit: 3 };

    expect(await fullTextOnly(request)).toEqual([]);
    const [hit] = await withEmbeddings(request);

    expect(hit).toMatchObject({ fileId: 'F1', page: 2 });
    expect(openai.embeddingRequests.at(-1)!.input).toEqual(['netwrok topolgy']);
  });

  it('falls back to full text when the query cannot be embedded', async () => {
    const down = { model: 'text-embedding-3-small', embed: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    const search = createSearcher({ db: handle.db, embedder: down });

    const [hit] = await search({ files: [file], contentHashes: new Map([['F1', 'hash-manual']]), query: 'core routers', limit: 3 });

    expect(hit).toMatchObject({ fileId: 'F1', page: 2 });
  });

  it('embeds, after a search, a document indexed before embeddings were switched on', async () => {
    await saveDocument(handle.db, 'hash-older', { document: manual });
    await indexDocument(handle.db, 'hash-older', manual);
    const search = createSearcher({ db: handle.db, embedder: embedderFor('text-embedding-3-small') });
    const older = { ...file, id: 'F2', name: 'older.pdf' };

    const [hit] = await search({ files: [older], contentHashes: new Map([['F2', 'hash-older']]), query: 'core routers', limit: 3 });

    expect(hit).toMatchObject({ fileId: 'F2', page: 2 });
    // In the background after the search: vitest's default 1 s was too short on a busy 2-core machine.
    await vi.waitFor(
      async () => {
        const rows = await handle.db.select().from(chunks).where(eq(chunks.contentHash, 'hash-older'));
        expect(rows.every((r) => r.embeddingModel === 'text-embedding-3-small')).toBe(true);
      },
      { timeout: 10_000, interval: 20 },
    );
  });

  it('embeds again under a new model name, since vectors of two models do not compare', async () => {
    openai.reset();
    const result = await indexDocument(handle.db, 'hash-manual', manual, { embedder: embedderFor('text-embedding-3-large') });

    expect(result.embedded).toBe(result.chunks);
    expect(openai.embeddingRequests.every((r) => r.model === 'text-embedding-3-large')).toBe(true);
  });
});
