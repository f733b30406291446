import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Database } from '../store/database';
import { chunks, documents } from '../store/schema';
import type { ExtractedDocument } from '../core/thread-file';
import { chunkDocument, type ChunkOptions, type DocumentChunk } from './chunk-document';
import { forgetChunkIndex } from './chunk-index';
import { toCjkBigrams } from './cjk-bigrams';
import { embedMissingChunks } from './embed-chunks';
import type { Embedder } from './embedder';
import { chooseChunkConfig, guessTextSearchLanguage, type TextSearchConfig } from '../text/language';
import { messageOf } from '../core/errors';

export interface IndexOptions {
  /** When set (OPENAI_EMBEDDING_MODEL), chunks are embedded once and the vectors kept beside them. */
  embedder?: Embedder;
  /** Chat model whose tokenizer sizes the chunks (o200k for current models, cl100k for older ones). */
  model?: string;
  chunking?: ChunkOptions;
  signal?: AbortSignal;
}

export interface IndexResult {
  /** True when the document was indexed before this call, by this version. */
  alreadyIndexed: boolean;
  /** True when this call rebuilt an index an earlier version had built. */
  rebuilt?: boolean;
  chunks: number;
  embedded: number;
  /** Why embedding failed; the chunks are searchable by full text all the same. */
  embeddingError?: string;
}

/**
 * What a document's index is built with. Raise it whenever chunking, or what a chunk is indexed under, changes: a
 * document indexed by an earlier version is rebuilt the next time it is searched (from its stored text: nothing is
 * downloaded or extracted again), so an upgrade's better search reaches the documents people already shared.
 *   1: a word hyphenated at a line end indexed joined as well; a table's header indexed with its later rows.
 */
export const SEARCH_INDEX_VERSION = 1;

/** Rows per INSERT: big enough to be quick, small enough for PostgreSQL's 65,535-parameter limit. */
const INSERT_BATCH = 200;
/** Enough of a document to tell its language, taken from several places (a cover page may be bilingual). */
const LANGUAGE_SAMPLE = 6_000;

/**
 * Builds the search chunks of an extracted document, once per content hash. Idempotent and safe when two
 * replicas index the same document at once: chunking is deterministic, rows conflict on (content_hash, ordinal)
 * and the loser's inserts do nothing. `documents.indexed_at` is set last, so a crash half-way leaves the document
 * unindexed and the next call completes it. The `documents` row must exist (the extraction cache writes it).
 * An index an earlier SEARCH_INDEX_VERSION built is replaced whole, in one transaction (rebuildIndex).
 */
export async function indexDocument(
  db: Database,
  contentHash: string,
  document: ExtractedDocument,
  options: IndexOptions = {},
): Promise<IndexResult> {
  const [row] = await db
    .select({ indexedAt: documents.indexedAt, indexVersion: documents.indexVersion })
    .from(documents)
    .where(eq(documents.contentHash, contentHash));
  if (!row) {
    throw new Error(`Cannot index document ${contentHash}: no documents row for that content hash (store the extraction first)`);
  }
  const current = Boolean(row.indexedAt) && row.indexVersion === SEARCH_INDEX_VERSION;
  let count: number;
  let rebuilt = false;
  if (current) {
    count = await countChunks(db, contentHash);
  } else if (row.indexedAt) {
    ({ count, rebuilt } = await rebuildIndex(db, contentHash, document, options));
    if (rebuilt) forgetChunkIndex(contentHash);
  } else {
    const pieces = chunkDocument(document, { model: options.model, ...options.chunking });
    await insertChunks(db, contentHash, pieces, detectDocumentConfig(document.text), new Map(), options.signal);
    await db
      .update(documents)
      .set({ indexedAt: new Date(), indexVersion: SEARCH_INDEX_VERSION })
      .where(and(eq(documents.contentHash, contentHash), isNull(documents.indexedAt)));
    count = pieces.length;
  }
  const result: IndexResult = { alreadyIndexed: current, chunks: count, embedded: 0, ...(rebuilt ? { rebuilt } : {}) };
  if (options.embedder) {
    try {
      result.embedded = await embedMissingChunks(db, contentHash, options.embedder, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      result.embeddingError = messageOf(error);
    }
  }
  return result;
}

/**
 * Replaces an index an earlier version built: the old chunks go and the new ones come in one transaction, so a
 * search meanwhile sees the old index or the new, never half of one. The document's row is locked first and its
 * version read again: a replica that was rebuilding it at the same moment has finished, and nothing is done twice.
 * A chunk whose text is unchanged keeps its embedding, so a rebuild costs the embedding model nothing for it.
 */
async function rebuildIndex(
  db: Database,
  contentHash: string,
  document: ExtractedDocument,
  options: IndexOptions,
): Promise<{ count: number; rebuilt: boolean }> {
  return db.transaction(async (tx) => {
    const txDb = tx as unknown as Database;
    const [locked] = await tx
      .select({ indexVersion: documents.indexVersion })
      .from(documents)
      .where(eq(documents.contentHash, contentHash))
      .for('update');
    if (locked?.indexVersion === SEARCH_INDEX_VERSION) return { count: await countChunks(txDb, contentHash), rebuilt: false };
    const embedded = await tx
      .select({ text: chunks.text, embedding: chunks.embedding, embeddingModel: chunks.embeddingModel })
      .from(chunks)
      .where(and(eq(chunks.contentHash, contentHash), isNotNull(chunks.embedding)));
    const kept: KeptEmbeddings = new Map(embedded.map((old) => [old.text, { embedding: old.embedding!, embeddingModel: old.embeddingModel }]));
    await tx.delete(chunks).where(eq(chunks.contentHash, contentHash));
    const pieces = chunkDocument(document, { model: options.model, ...options.chunking });
    await insertChunks(txDb, contentHash, pieces, detectDocumentConfig(document.text), kept, options.signal);
    await tx.update(documents).set({ indexedAt: new Date(), indexVersion: SEARCH_INDEX_VERSION }).where(eq(documents.contentHash, contentHash));
    return { count: pieces.length, rebuilt: true };
  });
}

/** Embeddings of an index being rebuilt, by chunk text. */
type KeptEmbeddings = Map<string, { embedding: number[]; embeddingModel: string | null }>;

async function insertChunks(
  db: Database,
  contentHash: string,
  pieces: DocumentChunk[],
  documentConfig: TextSearchConfig,
  kept: KeptEmbeddings,
  signal?: AbortSignal,
): Promise<void> {
  for (let i = 0; i < pieces.length; i += INSERT_BATCH) {
    signal?.throwIfAborted();
    const rows = pieces.slice(i, i + INSERT_BATCH).map((piece) => {
      // PostgreSQL text cannot hold NUL; a space keeps the offsets right.
      const text = piece.text.replace(/\u0000/g, ' ');
      const config = chooseChunkConfig(text, documentConfig);
      const indexed = indexedText(piece, text);
      const bigrams = toCjkBigrams(indexed).join(' ');
      return {
        contentHash,
        ordinal: piece.ordinal,
        text,
        location: piece.location,
        page: piece.page ?? null,
        startOffset: piece.start,
        endOffset: piece.end,
        tokens: piece.tokens,
        tsv: sql`to_tsvector(${config}::regconfig, ${indexed})`,
        cjkTsv: bigrams ? sql`to_tsvector('simple', ${bigrams})` : null,
        ...kept.get(text),
      };
    });
    await db.insert(chunks).values(rows).onConflictDoNothing({ target: [chunks.contentHash, chunks.ordinal] });
  }
}

/**
 * A word broken at a line end ("experi-\nence", "Mannig-\nfaltigkeit") is indexed joined as well: PDF text keeps
 * typesetters' hyphens, and the halves match no query. The hyphenated form stays, for compounds that really have a
 * hyphen ("feed-forward", "FAA-approved"). A table's header is indexed with its later rows (chunk-document.ts).
 * Neither changes the chunk's text or offsets, only what finds it.
 */
function indexedText(piece: DocumentChunk, text: string): string {
  const joined = text.replace(HYPHENATED_LINE_END, '$1-$2 $1$2');
  return piece.context ? `${piece.context.replace(/\u0000/g, ' ')}\n${joined}` : joined;
}

/** Letters, a hyphen ending the line, and the word's lower-case rest on the next line. */
const HYPHENATED_LINE_END = /(\p{L}+)-[^\S\n]*\n[^\S\n]*(\p{Ll}+)/gu;

function detectDocumentConfig(text: string): TextSearchConfig {
  const third = Math.floor(text.length / 3);
  const sample = [0, third, 2 * third].map((at) => text.slice(at, at + LANGUAGE_SAMPLE / 3)).join('\n');
  return guessTextSearchLanguage(sample).config;
}

async function countChunks(db: Database, contentHash: string): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)` })
    .from(chunks)
    .where(eq(chunks.contentHash, contentHash));
  return Number(row?.count ?? 0);
}
