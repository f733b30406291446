/** A thread_files row as the ThreadFile the rest of the app sees (nulls become absent fields). */
import type { threadFiles } from '../store/schema';
import type { ThreadFile } from '../core/thread-file';

export function toThreadFile(row: typeof threadFiles.$inferSelect): ThreadFile {
  const file: ThreadFile = {
    id: row.fileId,
    name: row.name,
    mimeType: row.mimeType,
    fileType: row.fileType,
    sizeBytes: row.sizeBytes,
    messageTs: row.messageTs,
  };
  if (row.authorName !== null) file.authorName = row.authorName;
  if (row.slackFileId !== null) file.slackFileId = row.slackFileId;
  if (row.sourceFileId !== null) file.sourceId = row.sourceFileId;
  return file;
}
