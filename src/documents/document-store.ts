/**
 * Extracted documents by content hash (the documents table): the same bytes are parsed once, whoever shares them
 * and in whichever thread. A lasting error is kept like a document, so a broken file is not parsed again.
 * Content hashes are sha256 hex; "unavailable:<code>" is the sentinel of a file Slack says is gone or external.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../store/database';
import { documents } from '../store/schema';
import type { ExtractedDocument, FileErrorCode, OutlineEntry, TextSegment } from '../core/thread-file';

export type CachedRead =
  | { ok: true; contentHash: string; document: ExtractedDocument }
  | { ok: false; contentHash: string; code: FileErrorCode; message: string };

/**
 * Errors that belong to the bytes and would come back on every try. Timeouts, memory pressure and access are
 * about the moment, not the file, so they are never cached.
 */
const LASTING_ERRORS: ReadonlySet<FileErrorCode> = new Set([
  'encrypted', 'no_text_layer', 'corrupt', 'empty', 'too_large', 'unsupported', 'deleted', 'external',
]);

export function isLastingError(code: FileErrorCode): boolean {
  return LASTING_ERRORS.has(code);
}

export function unavailableContentHash(code: FileErrorCode): string {
  return `unavailable:${code}`;
}

export async function findDocument(db: Database, contentHash: string): Promise<CachedRead | undefined> {
  const [row] = await db.select().from(documents).where(eq(documents.contentHash, contentHash));
  if (!row) return undefined;
  if (row.errorCode) {
    return { ok: false, contentHash, code: row.errorCode as FileErrorCode, message: row.errorMessage ?? '' };
  }
  const document: ExtractedDocument = {
    text: row.text ?? '',
    outline: row.outline as OutlineEntry[],
    segments: row.segments as TextSegment[],
    notes: row.notes,
  };
  if (row.pageCount !== null) document.pageCount = row.pageCount;
  if (row.entries) document.entries = row.entries;
  return { ok: true, contentHash, document };
}

/** First writer wins: the same bytes give the same result, so a concurrent second write has nothing to add. */
export async function saveDocument(
  db: Database,
  contentHash: string,
  result: { document: ExtractedDocument } | { code: FileErrorCode; message: string },
): Promise<void> {
  const values =
    'document' in result
      ? {
          contentHash,
          text: result.document.text,
          pageCount: result.document.pageCount ?? null,
          outline: result.document.outline,
          segments: result.document.segments,
          notes: result.document.notes,
          entries: result.document.entries ?? null,
        }
      : { contentHash, errorCode: result.code, errorMessage: result.message };
  await db.insert(documents).values(values).onConflictDoNothing();
}

