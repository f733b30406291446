/**
 * Preloads: the first N KB of the thread's readable files, put into the current turn so a short log or a small doc
 * needs no tool call. Only text that is cheap to have is used — text-like files (read now if they are small), and
 * the extracted text of documents that were extracted before (never a parse just to preload). A file's preload is
 * used only when it fits what is left of the total, so one long file cannot crowd out the others.
 */
import { isExtractableDocument, isImageFile, isTextLikeFile } from '../core/file-kinds';
import { mapConcurrently } from '../core/map-concurrently';
import type { FileAccess } from './thread-file-access';
import { compareSlackTs } from '../core/slack-ts';
import { isContainedFile } from './contained-file-key';
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
      // A file inside an archive or email is preloaded once it was opened: the first turn does not unpack them all.
      if (isTextLikeFile(file) && file.sizeBytes <= maxDownload && !isContainedFile(file)) {
        return (await access.readText(file.id, options.signal)).text;
      }
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

export interface FreshExtractionOptions {
  /** The longest the first request waits, in all, for documents being read. Default 3 s (documented in README). */
  waitMs?: number;
  /** Only documents up to this size are waited for; bigger ones are listed as extracting. Default 5 MB. */
  maxWaitBytes?: number;
  /** Clock for the estimate; tests pass a fake. */
  now?: () => number;
}

const FIRST_REQUEST_WAIT_MS = 3_000;
const FIRST_REQUEST_MAX_WAIT_BYTES = 5 * 1024 * 1024;

/**
 * Before the first request of a question: documents posted with it are usually not read yet (prefetch started when
 * they arrived, a moment ago). Reading starts for every document not in the cache (or joins the read already under
 * way); the openings of small ones (a long PDF's first pages, any other document whole) are waited for, a bounded
 * time in all, so the request shows their page count and preload; those not read whole by then are marked
 * "extracting, ready in about N s" and keep reading in the background, where extract_file joins them rather than
 * starting again.
 */
export async function awaitFreshExtractions(access: FileAccess, files: ThreadFile[], options: FreshExtractionOptions = {}): Promise<void> {
  const waitMs = options.waitMs ?? FIRST_REQUEST_WAIT_MS;
  const maxWaitBytes = options.maxWaitBytes ?? FIRST_REQUEST_MAX_WAIT_BYTES;
  const now = options.now ?? Date.now;
  const started = now();
  const documents = files.filter(
    (file) => !file.sourceId && !file.error && !isImageFile(file) && !isContainedFile(file) && isExtractableDocument(file),
  );
  const uncached = (
    await mapConcurrently(documents, READ_CONCURRENCY, async (file) => ((await access.readCachedText(file.id)) ? undefined : file))
  ).filter((file): file is ThreadFile => file !== undefined);
  if (uncached.length === 0) return;

  const done = new Set<string>();
  // Without a signal: the read goes on after the wait, so the answer (or the next question) finds it cached.
  for (const file of uncached) {
    access.readText(file.id).then(
      () => done.add(file.id),
      () => done.add(file.id), // the error is the tools' to report; the list shows lasting ones
    );
  }
  // What the request waits for is each document's opening: a long PDF's first pages come well before its end, and
  // are what the preload needs; the rest lands in the background (search, peek and extract join that read).
  const openings = uncached.map((file) => access.readOpening(file.id).catch(() => undefined));
  const small = uncached.filter((file) => file.sizeBytes <= maxWaitBytes);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
  await Promise.race([Promise.all(small.map((file) => openings[uncached.indexOf(file)])), bound]);
  clearTimeout(timer);

  const waited = (now() - started) / 1000;
  for (const file of uncached) {
    if (done.has(file.id)) continue;
    access.notePending(file.id, Math.max(1, Math.round(estimateExtractionSeconds(file) - waited)));
  }
}

/**
 * About how long reading a document takes, from what is known before reading it: its size. Measured here on the
 * corpus (bench extract.*): ~1 s per MB of PDF or Office file plus start-up; a scan is slower but cannot be told
 * from its size, so the estimate is a floor the model can plan with, not a promise.
 */
function estimateExtractionSeconds(file: Pick<ThreadFile, 'sizeBytes'>): number {
  return 2 + file.sizeBytes / (1024 * 1024);
}
