/**
 * The thread files' side of the cache: Slack file id → content hash (slack_file_contents), so a second question
 * about a file needs no download; the documents themselves are in documents/document-store.ts. A file Slack says is
 * gone or external has no bytes: it points at a sentinel document that holds only the error, so the files list can
 * show it after a restart.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../store/database';
import { documents, slackFileContents, threadFiles } from '../store/schema';
import type { ExtractedDocument, ThreadFile } from '../core/thread-file';
import { findDocument, saveDocument, unavailableContentHash, type CachedRead } from '../documents/document-store';
import { isResultFile } from './result-file-key';

/** The cached result for a Slack file, or undefined when it has never been read. */
export async function findCachedRead(db: Database, slackFileId: string): Promise<CachedRead | undefined> {
  const [link] = await db
    .select({ contentHash: slackFileContents.contentHash })
    .from(slackFileContents)
    .where(eq(slackFileContents.slackFileId, slackFileId));
  return link ? findDocument(db, link.contentHash) : undefined;
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
  if (row?.sourceFileId && !isResultFile({ slackFileId: row.slackFileId ?? undefined })) return getDocumentForFile(db, threadId, row.sourceFileId);
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
    const chars = file.sourceId && !isResultFile(file) ? lengths.get(file.sourceId) : undefined;
    if (chars !== undefined) lengths.set(file.id, chars);
  }
  return lengths;
}
