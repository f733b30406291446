/**
 * The thread's file registry: every file on every message of the thread gets a short id ("F1", "F2"… in order of
 * first sight) that stays the same for the life of the thread, so tool calls in history keep resolving after
 * restarts, rebuilds and new uploads. Ids live in thread_files, unique per (thread, id) and (thread, Slack file id).
 *
 * Two runs may register the same thread at once (two replicas, one PostgreSQL). Each inserts with ON CONFLICT DO
 * NOTHING and reads back: whichever insert won, every file ends up with exactly one id, and no id is reused.
 */
import { and, eq, isNotNull, isNull, or } from 'drizzle-orm';
import type { Database } from '../store/database';
import { documents, slackFileContents, threadFiles } from '../store/schema';
import { describeFileError } from './describe-file-error';
import { markSlackFileUnavailable } from './file-store';
import { compareSlackTs } from '../core/slack-ts';
import { toThreadFile } from './thread-file-row';
import { externalServiceName, slackFileName, unreadableReason, type SlackFileObject } from '../core/slack-file';
import { documentLanguage, isScannedDocument, type ContainedFile, type ExtractedDocument, type FileErrorCode, type ThreadFile } from '../core/thread-file';
import { containedFileKey } from './contained-file-key';
import { isResultFile } from './result-file-key';
import { fileTypeOfPath } from '../documents/containers';
import { isImageFile } from '../core/file-kinds';

export interface MessageFiles {
  ts: string;
  authorName?: string;
  files?: SlackFileObject[];
}

// Racing registrations settle in one or two rounds; more means something is wrong, and we say so.
const MAX_ROUNDS = 8;

export async function registerThreadFiles(db: Database, threadId: number, messages: MessageFiles[]): Promise<ThreadFile[]> {
  const seen = new Map<string, { file: SlackFileObject; ts: string; authorName?: string }>();
  for (const message of [...messages].sort((a, b) => compareSlackTs(a.ts, b.ts))) {
    for (const file of message.files ?? []) {
      if (file.id && !seen.has(file.id)) seen.set(file.id, { file, ts: message.ts, authorName: message.authorName });
    }
  }

  for (let round = 0; ; round += 1) {
    const rows = await db.select().from(threadFiles).where(eq(threadFiles.threadId, threadId));
    const known = new Set(rows.map((row) => row.slackFileId));
    const fresh = [...seen.values()].filter((s) => !known.has(s.file.id));
    if (fresh.length === 0) break;
    if (round === MAX_ROUNDS) {
      throw new Error(`Could not register ${fresh.length} file(s) in thread ${threadId} after ${MAX_ROUNDS} tries: ids kept colliding.`);
    }
    let next = nextFileNumber(rows.map((row) => row.fileId));
    await db
      .insert(threadFiles)
      .values(
        fresh.map(({ file, ts, authorName }) => ({
          threadId,
          fileId: `F${next++}`,
          slackFileId: file.id,
          name: slackFileName(file),
          mimeType: file.mimetype ?? 'application/octet-stream',
          fileType: file.filetype ?? '',
          sizeBytes: file.size ?? 0,
          messageTs: ts,
          authorName: authorName ?? null,
        })),
      )
      .onConflictDoNothing();
  }

  // A file first registered without its author (read ahead of time, before names were known) gets one now, and so
  // does the extracted-text file made from it.
  if ([...seen.values()].some((s) => s.authorName)) {
    const unnamed = await db
      .select({ fileId: threadFiles.fileId, slackFileId: threadFiles.slackFileId })
      .from(threadFiles)
      .where(and(eq(threadFiles.threadId, threadId), isNull(threadFiles.authorName), isNotNull(threadFiles.slackFileId)));
    for (const { fileId, slackFileId } of unnamed) {
      const authorName = seen.get(slackFileId!)?.authorName;
      if (!authorName) continue;
      await db
        .update(threadFiles)
        .set({ authorName })
        .where(and(eq(threadFiles.threadId, threadId), isNull(threadFiles.authorName), or(eq(threadFiles.fileId, fileId), eq(threadFiles.sourceFileId, fileId))));
    }
  }

  // What the Slack objects say now wins over what was stored: a file deleted since is deleted.
  const live = new Map<string, { code: FileErrorCode; service: string }>();
  for (const { file } of seen.values()) {
    const code = unreadableReason(file);
    if (!code) continue;
    live.set(file.id, { code, service: externalServiceName(file) });
    if (code === 'deleted' || code === 'external') await markSlackFileUnavailable(db, file.id, code);
  }
  return (await listThreadFiles(db, threadId)).map((file) => {
    const reason = file.slackFileId ? live.get(file.slackFileId) : undefined;
    if (!reason) return file;
    return { ...file, error: { code: reason.code, message: describeFileError(file, reason.code, { service: reason.service }) } };
  });
}

/** The thread's files in id order, with page counts and lasting errors from the cache where known. */
export async function listThreadFiles(db: Database, threadId: number): Promise<ThreadFile[]> {
  const rows = await db
    .select({ file: threadFiles, pageCount: documents.pageCount, errorCode: documents.errorCode, notes: documents.notes })
    .from(threadFiles)
    .leftJoin(slackFileContents, eq(slackFileContents.slackFileId, threadFiles.slackFileId))
    .leftJoin(documents, eq(documents.contentHash, slackFileContents.contentHash))
    .where(eq(threadFiles.threadId, threadId));
  const files = rows.map(({ file: row, pageCount, errorCode, notes }) => {
    const file = toThreadFile(row);
    if (pageCount !== null) file.pageCount = pageCount;
    if (notes && isScannedDocument({ notes })) file.scanned = true;
    const language = notes ? documentLanguage({ notes }) : undefined;
    if (language) file.language = language;
    // An image whose OCR found no text is still a picture load_file can show: not unreadable.
    if (errorCode && !(isImageFile(file) && errorCode !== 'deleted' && errorCode !== 'external')) {
      const code = errorCode as FileErrorCode;
      file.error = { code, message: describeFileError(file, code) };
    }
    return file;
  });
  // A virtual file has its source's pages (a query result has its own rows, none of its source's pages).
  const byId = new Map(files.map((file) => [file.id, file]));
  for (const file of files) {
    const source = file.sourceId && !isResultFile(file) ? byId.get(file.sourceId) : undefined;
    if (source?.pageCount !== undefined) file.pageCount = source.pageCount;
    if (source?.scanned) file.scanned = true;
    if (source?.language && !file.language) file.language = source.language;
  }
  return files.sort(compareFileIds);
}

/** Registers "F1.txt", the extracted text of F1, as a file of the thread. Idempotent. */
export async function registerVirtualFile(
  db: Database,
  threadId: number,
  source: ThreadFile,
  document: ExtractedDocument,
): Promise<ThreadFile> {
  const fileId = `${source.id}.txt`;
  await db
    .insert(threadFiles)
    .values({
      threadId,
      fileId,
      sourceFileId: source.id,
      name: `${source.name}.txt`,
      mimeType: 'text/plain',
      fileType: 'text',
      // In characters, the unit peek_file pages in; for extracted text that is the size that matters.
      sizeBytes: document.text.length,
      messageTs: source.messageTs,
      authorName: source.authorName ?? null,
    })
    .onConflictDoNothing();
  const [row] = await db
    .select()
    .from(threadFiles)
    .where(and(eq(threadFiles.threadId, threadId), eq(threadFiles.fileId, fileId)));
  if (!row) throw new Error(`Registered ${fileId} in thread ${threadId} but could not read it back.`);
  const file = toThreadFile(row);
  if (document.pageCount !== undefined) file.pageCount = document.pageCount;
  if (isScannedDocument(document)) file.scanned = true;
  const language = documentLanguage(document);
  if (language) file.language = language;
  return file;
}

/**
 * Registers the files inside a container (archive entries, email attachments, embedded pictures) as files of the
 * thread: "F3/logs/app.log". Their source key is the container's plus the path (containedFileKey), so the cache by
 * key and by content hash works for them as for any file. Idempotent; returns them in the order given.
 */
export async function registerContainedFiles(
  db: Database,
  threadId: number,
  container: ThreadFile,
  entries: readonly ContainedFile[],
): Promise<ThreadFile[]> {
  if (!container.slackFileId || entries.length === 0) return [];
  const values = entries.map((entry) => ({
    threadId,
    fileId: `${container.id}/${entry.path}`,
    slackFileId: containedFileKey(container.slackFileId!, entry.path),
    name: entry.path,
    mimeType: entry.mimeType,
    fileType: fileTypeOfPath(entry.path),
    sizeBytes: entry.sizeBytes,
    messageTs: container.messageTs,
    authorName: container.authorName ?? null,
  }));
  // In batches: one statement per entry would be slow for a big archive, one for all could pass parameter limits.
  for (let i = 0; i < values.length; i += 200) await db.insert(threadFiles).values(values.slice(i, i + 200)).onConflictDoNothing();
  const ids = new Set(values.map((value) => value.fileId));
  const rows = await db.select().from(threadFiles).where(eq(threadFiles.threadId, threadId));
  const byId = new Map(rows.filter((row) => ids.has(row.fileId)).map((row) => [row.fileId, toThreadFile(row)]));
  return values.flatMap((value) => byId.get(value.fileId) ?? []);
}

function nextFileNumber(ids: string[]): number {
  let max = 0;
  for (const id of ids) {
    const match = /^F(\d+)$/.exec(id);
    if (match) max = Math.max(max, Number(match[1]));
  }
  return max + 1;
}

/** F2 before F10, and F1.txt right after F1. */
function compareFileIds(a: ThreadFile, b: ThreadFile): number {
  const key = (id: string) => Number(/^F(\d+)/.exec(id)?.[1] ?? Number.MAX_SAFE_INTEGER);
  return key(a.id) - key(b.id) || a.id.length - b.id.length || a.id.localeCompare(b.id);
}
