import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../store/database';
import { chunks, documents } from '../store/schema';
import type { ExtractedDocument } from '../core/thread-file';
import { chunkDocument, type ChunkOptions, type DocumentChunk } from './chunk-document';
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
  /** True when the document was indexed before this call. */
  alreadyIndexed: boolean;
  chunks: number;
  embedded: number;
  /** Why embedding failed; the chunks are searchable by full text all the same. */
  embeddingError?: string;
}

/** Rows per INSERT: big enough to be quick, small enough for PostgreSQL's 65,535-parameter limit. */
const INSERT_BATCH = 200;
/** Enough of a document to tell its language, taken from several places (a cover page may be bilingual). */
const LANGUAGE_SAMPLE = 6_000;

/**
 * Builds the search chunks of an extracted document, once per content hash. Idempotent and safe when two
 * replicas index the same document at once: chunking is deterministic, rows conflict on (content_hash, ordinal)
 * and the loser's inserts do nothing. `documents.indexed_at` is set last, so a crash half-way leaves the document
 * unindexed and the next call completes it. The `documents` row must exist (the extraction cache writes it).
 */
export async function indexDocument(
  db: Database,
  contentHash: string,
  document: ExtractedDocument,
  options: IndexOptions = {},
): Promise<IndexResult> {
  const [row] = await db
    .select({ indexedAt: documents.indexedAt })
    .from(documents)
    .where(eq(documents.contentHash, contentHash));
  if (!row) {
    throw new Error(`Cannot index document ${contentHash}: no documents row for that content hash (store the extraction first)`);
  }
  let count: number;
  if (row.indexedAt) {
    count = await countChunks(db, contentHash);
  } else {
    const pieces = chunkDocument(document, { model: options.model, ...options.chunking });
    await insertChunks(db, contentHash, pieces, detectDocumentConfig(document.text), options.signal);
    await db
      .update(documents)
      .set({ indexedAt: new Date() })
      .where(and(eq(documents.contentHash, contentHash), isNull(documents.indexedAt)));
    count = pieces.length;
  }
  const result: IndexResult = { alreadyIndexed: Boolean(row.indexedAt), chunks: count, embedded: 0 };
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

async function insertChunks(
  db: Database,
  contentHash: string,
  pieces: DocumentChunk[],
  documentConfig: TextSearchConfig,
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
