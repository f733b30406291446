/**
 * The file cache in the database. Two steps, so each costs nothing the second time:
 *   Slack file id → content hash (slack_file_contents): a second question about a file needs no download;
 *   content hash → extracted document or lasting error (documents): the same bytes are parsed once, whoever
 *   shares them and in whichever thread.
 * Content hashes are sha256 hex. A file Slack says is gone or external has no bytes: it points at a sentinel
 * document "unavailable:<code>" that holds only the error, so the files list can show it after a restart.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../store/database';
import { documents, slackFileContents, threadFiles } from '../store/schema';
import type { ExtractedDocument, FileErrorCode, OutlineEntry, TextSegment, ThreadFile } from '../core/thread-file';

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

/** The cached result for a Slack file, or undefined when it has never been read. */
export async function findCachedRead(db: Database, slackFileId: string): Promise<CachedRead | undefined> {
  const [link] = await db
    .select({ contentHash: slackFileContents.contentHash })
    .from(slackFileContents)
    .where(eq(slackFileContents.slackFileId, slackFileId));
  return link ? findDocument(db, link.contentHash) : undefined;
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

export async function linkSlackFile(db: Database, slackFileId: string, contentHash: string, sizeBytes: number): Promise<void> {
  await db
    .insert(slackFileContents)
    .values({ slackFileId, contentHash, sizeBytes })
    .onConflictDoUpdate({ target: slackFileContents.slackFileId, set: { contentHash, sizeBytes } });
}

/** Remembers that Slack reports the file deleted or external, so the error survives without the Slack object. */
export async function markSlackFileUnavailable(db: Database, slackFileId: string, code: 'deleted' | 'external'): Promise<void> {
  const contentHash = unavailableContentHash(code);
  await saveDocument(db, contentHash, { code, message: `Slack reports this file as ${code}.` });
  await linkSlackFile(db, slackFileId, contentHash, 0);
}

/** Content hashes of Slack files already downloaded (sentinels left out), for search and preloads. */
export async function findContentHashes(db: Database, slackFileIds: string[]): Promise<Map<string, string>> {
  if (slackFileIds.length === 0) return new Map();
  const rows = await db
    .select({ slackFileId: slackFileContents.slackFileId, contentHash: slackFileContents.contentHash })
    .from(slackFileContents)
    .where(inArray(slackFileContents.slackFileId, slackFileIds));
  return new Map(rows.filter((r) => !r.contentHash.startsWith('unavailable:')).map((r) => [r.slackFileId, r.contentHash]));
}

/**
 * For search indexing and tests: the cached text of a thread's file by its thread id ("F1", or "F1.txt" which
 * shares its source's text), without any download or parse. Undefined when not read yet or unreadable.
 */
export async function getDocumentForFile(
  db: Database,
  threadId: number,
  fileId: string,
): Promise<{ contentHash: string; document: ExtractedDocument } | undefined> {
  const [row] = await db
    .select({ slackFileId: threadFiles.slackFileId, sourceFileId: threadFiles.sourceFileId })
    .from(threadFiles)
    .where(and(eq(threadFiles.threadId, threadId), eq(threadFiles.fileId, fileId)));
  if (row?.sourceFileId) return getDocumentForFile(db, threadId, row.sourceFileId);
  if (!row?.slackFileId) return undefined;
  const cached = await findCachedRead(db, row.slackFileId);
  return cached?.ok ? { contentHash: cached.contentHash, document: cached.document } : undefined;
}

/**
 * Characters of extracted text per file id, for files already extracted (a virtual file has its source's), so the
 * files list can say how big a file is in the unit the model pages in. One query, no text loaded.
 */
export async function findTextLengths(db: Database, files: ThreadFile[]): Promise<Map<string, number>> {
  const bySlackId = new Map(files.flatMap((f) => (f.slackFileId ? [[f.slackFileId, f.id] as const] : [])));
  if (bySlackId.size === 0) return new Map();
  const rows = await db
    .select({ slackFileId: slackFileContents.slackFileId, chars: sql<number>`char_length(${documents.text})` })
    .from(slackFileContents)
    .innerJoin(documents, eq(documents.contentHash, slackFileContents.contentHash))
    .where(inArray(slackFileContents.slackFileId, [...bySlackId.keys()]));
  const lengths = new Map<string, number>();
  for (const row of rows) {
    const id = bySlackId.get(row.slackFileId);
    if (id && row.chars !== null) lengths.set(id, Number(row.chars));
  }
  for (const file of files) {
    const chars = file.sourceId ? lengths.get(file.sourceId) : undefined;
    if (chars !== undefined) lengths.set(file.id, chars);
  }
  return lengths;
}
