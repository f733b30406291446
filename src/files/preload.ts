/**
 * Preloads: the first N KB of the thread's readable files, put into the current turn so a short log or a small doc
 * needs no tool call. Only text that is cheap to have is used — text-like files (read now if they are small), and
 * the extracted text of documents that were extracted before (never a parse just to preload). A file's preload is
 * used only when it fits what is left of the total, so one long file cannot crowd out the others.
 */
import { isExtractableDocument, isImageFile, isTextLikeFile } from '../core/file-kinds';
import { mapConcurrently } from '../core/map-concurrently';
import type { FileAccess } from './thread-file-access';
import { compareSlackTs } from './slack-ts';
import type { ThreadFile } from '../core/thread-file';

export interface PreloadOptions {
  /** All preloads together, in KB. Default: 4 × preloadKb. */
  totalKb?: number;
  /** Text-like files above this are not downloaded only to preload them (still used when cached). Default 2 MB. */
  maxDownloadBytes?: number;
  signal?: AbortSignal;
}

const READ_CONCURRENCY = 3;

/** File id → its first `preloadKb` KB of text (1 KB = 1,024 characters), cut at a line end where one is near. */
export async function computePreloads(
  access: FileAccess,
  files: ThreadFile[],
  preloadKb: number,
  options: PreloadOptions = {},
): Promise<Map<string, string>> {
  const preloads = new Map<string, string>();
  if (preloadKb <= 0) return preloads;
  const perFile = preloadKb * 1024;
  let left = (options.totalKb ?? preloadKb * 4) * 1024;
  const maxDownload = options.maxDownloadBytes ?? 2 * 1024 * 1024;

  // Newest message first: the files someone just shared are the ones the question is about.
  const candidates = files
    .filter((file) => !file.sourceId && !file.error && !isImageFile(file))
    .sort((a, b) => compareSlackTs(b.messageTs, a.messageTs));
  const texts = await mapConcurrently(candidates, READ_CONCURRENCY, async (file) => {
    try {
      if (isTextLikeFile(file) && file.sizeBytes <= maxDownload) return (await access.readText(file.id, options.signal)).text;
      if (isTextLikeFile(file) || isExtractableDocument(file)) return (await access.readCachedText(file.id))?.text;
    } catch {
      // Not preloaded, that is all: the file stays listed, and a tool call will say what is wrong with it.
    }
    return undefined;
  });

  candidates.forEach((file, index) => {
    const text = texts[index];
    if (!text) return;
    const prefix = cutPrefix(text, perFile);
    if (prefix.length > left) return;
    preloads.set(file.id, prefix);
    left -= prefix.length;
  });
  return preloads;
}

/** The first `maxChars` characters, ending at a line break in the last fifth when there is one. */
export function cutPrefix(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const lineEnd = text.lastIndexOf('\n', maxChars);
  let end = lineEnd >= maxChars * 0.8 ? lineEnd + 1 : maxChars;
  // Never split a surrogate pair: half an emoji is not text.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}
