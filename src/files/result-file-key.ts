/**
 * Query results as files of the thread (query_table's "F1.q1"): their source key and content hash. A result has no
 * bytes anywhere but the database: its CSV text is its document (documents, by content hash), and its thread_files
 * row points at it through slack_file_contents under a key no Slack file id or local path key holds, so load_file,
 * peek_file and search_file read it from the cache like any extracted file, and retention sweeps it like one.
 */
import { displayFileName, FileReadError } from '../core/thread-file';
import { isResultFile, RESULT_KEY_PREFIX as KEY_PREFIX } from '../core/file-kinds';
import type { FileSource } from './file-source';

export { isResultFile };

/** The source key of a result: unique across threads (slack_file_contents is keyed by it alone). */
export function resultFileKey(threadId: number, fileId: string): string {
  return `${KEY_PREFIX}${threadId}:${fileId}`;
}

/** Content hashes of results are prefixed, so a result never shares a document with an uploaded file's bytes. */
export function resultContentHash(sha256Hex: string): string {
  return `${KEY_PREFIX}${sha256Hex}`;
}

/**
 * A result's text lives only in the cache: once retention swept it (or it was never saved), there is nothing to
 * download, and the sentence says how to get it back instead of asking Slack for a file it never had.
 */
export function withResultFiles(source: FileSource): FileSource {
  const gone = (file: { id: string; name: string }) =>
    new FileReadError(
      'deleted',
      `${file.id} (${displayFileName(file.name)}) was a query result that is no longer kept; run query_table again to get it back.`,
    );
  return {
    readBytes: (file, key, options) => (key.startsWith(KEY_PREFIX) ? Promise.reject(gone(file)) : source.readBytes(file, key, options)),
    readImage: (file, key, options) => (key.startsWith(KEY_PREFIX) ? Promise.reject(gone(file)) : source.readImage(file, key, options)),
  };
}
