/**
 * ThreadFileAccess for one thread: what the tools may do with the thread's files, by their short ids. Every id is
 * looked up in this thread's list only, so an id from another thread (or a made-up one) is refused with the ids
 * that do exist, and no other thread's content can be reached through it.
 */
import type { Searcher } from '../search/create-searcher';
import type { SearchHit, SearchOptions } from '../search/search-hit';
import { isImageFile } from '../core/file-kinds';
import { findCachedRead } from './file-store';
import { isLastingError } from '../documents/document-store';
import { mapConcurrently } from '../core/map-concurrently';
import { createDocumentReader, type DocumentReaderOptions } from './read-document';
import type { ShownImage } from './file-source';
import { registerContainedFiles, registerVirtualFile } from './registry';
import { isContainedFile, splitContainedFileKey } from './contained-file-key';
import { parsePictureList, PICTURE_LIST_PATH } from '../documents/pdf-images';
import { withContainedFiles } from './contained-file-source';
import { isResultFile, withResultFiles } from './result-file-key';
import { createHash } from 'node:crypto';
import { displayFileName, documentLanguage, FileReadError, isScannedDocument, UnknownFileError, type ExtractedDocument, type ThreadFile } from '../core/thread-file';

/** What the tools may do with the thread's files. Implemented by files/ for one thread; ids are thread-scoped. */
export interface ThreadFileAccess {
  list(): ThreadFile[];
  /** Throws UnknownFileError (listing the ids that exist) for an id not in this thread. */
  get(id: string): ThreadFile;
  /** The file's text (extracting on first use, cached after). Throws FileReadError. */
  readText(id: string, signal?: AbortSignal): Promise<ExtractedDocument>;
  /** Extract into a virtual file (id "F1.txt"), registered in the thread. */
  extract(id: string, signal?: AbortSignal): Promise<{ file: ThreadFile; document: ExtractedDocument }>;
  /** An image file as a data: URL within the byte cap. Throws FileReadError. */
  readImage(id: string, signal?: AbortSignal): Promise<{ dataUrl: string; width?: number; height?: number }>;
  /**
   * Best passages for a query; id "*" searches every file of the thread. `query` is one phrasing, or several
   * searched at once and fused (the person's words and the document's).
   */
  search(id: string, query: string | string[], limit: number, options?: SearchOptions): Promise<SearchHit[]>;
  /**
   * The file's bytes and their content hash, by id only (never a path): an uploaded file's as stored (from Slack or
   * the disk, within MAX_FILE_MB), an extracted text's or a query result's as UTF-8 text. Throws UnknownFileError
   * for an id not in this thread, FileReadError for a file that cannot be read.
   */
  readBytes(id: string, signal?: AbortSignal): Promise<{ file: ThreadFile; bytes: Uint8Array; contentHash: string }>;
}

/** The entry of a PDF whose reading lists its pictures (documents/pdf-images.ts). */
function isPdfPictureList(file: ThreadFile): boolean {
  return isContainedFile(file) && file.name === PICTURE_LIST_PATH && /::pictures\.txt$/.test(file.slackFileId!);
}

export interface ThreadFileAccessOptions extends DocumentReaderOptions {
  threadId: number;
  /** The thread's registered files (registerThreadFiles / listThreadFiles). */
  files: ThreadFile[];
  searcher?: Searcher;
}

export interface FileAccess extends ThreadFileAccess {
  /**
   * The file's text if it was extracted before, or the opening (first pages) of a read under way that has told
   * it; never downloads or parses. For preloads.
   */
  readCachedText(id: string): Promise<ExtractedDocument | undefined>;
  /**
   * The opening of the file's text: a long PDF's first pages as soon as they are read, else the whole document.
   * Joins (or starts) the file's read; the list learns its page count from the opening. Throws FileReadError.
   */
  readOpening(id: string): Promise<ExtractedDocument>;
  /** Marks a file whose extraction is still running, with about how long it needs, for this run's files list. */
  notePending(id: string, readyInSeconds: number): void;
  /** A file registered during the run (a query result), so this run's list and lookups know it. */
  addFile(file: ThreadFile): void;
}

// Search over "*" extracts what is not extracted yet; a few at a time keeps the workers and the source calm.
const SEARCH_EXTRACT_CONCURRENCY = 3;

export function createThreadFileAccess(options: ThreadFileAccessOptions): FileAccess {
  const { db, threadId } = options;
  const files = [...options.files];
  const source = withResultFiles(
    withContainedFiles(
      options.source,
      (key) => files.find((file) => file.slackFileId === key),
      options.extractor.readPdfPicture?.bind(options.extractor),
    ),
  );
  const readDocument = createDocumentReader({ ...options, source });
  /** Openings told by reads under way (by file id), until the whole is cached. */
  const openings = new Map<string, ExtractedDocument>();

  const get = (id: string): ThreadFile => {
    const wanted = id.trim().toLowerCase();
    const file = files.find((f) => f.id.toLowerCase() === wanted);
    if (!file) throw new UnknownFileError(id, files.map((f) => f.id));
    return file;
  };

  /** The file with stored bytes behind it: an extracted text's source (a query result has its own text). */
  const sourceOf = (file: ThreadFile): ThreadFile => (file.sourceId && !isResultFile(file) ? get(file.sourceId) : file);

  const readWithHash = async (id: string, signal?: AbortSignal) => {
    const { pending: _pending, ...file } = sourceOf(get(id));
    if (file.error) throw new FileReadError(file.error.code, file.error.message);
    const image = isImageFile(file);
    if (image && !options.extractor.readsImages) {
      throw new FileReadError(
        'unsupported',
        `${displayFileName(file.name)} is an image, so it has no text to read: load_file(${file.id}) shows it to me as a picture.`,
      );
    }
    try {
      const result = await readDocument(file, signal);
      if (result.document.entries?.length && !isContainedFile(file)) {
        for (const entry of await registerContainedFiles(db, threadId, file, result.document.entries)) {
          if (!files.some((known) => known.id === entry.id)) remember(entry);
        }
      }
      if (isPdfPictureList(file)) {
        // A PDF's pictures are listed when asked for (this entry read): each becomes a file of the thread.
        const container = files.find((known) => known.slackFileId === splitContainedFileKey(file.slackFileId!)?.containerKey);
        if (container) {
          for (const entry of await registerContainedFiles(db, threadId, container, parsePictureList(result.document.text))) {
            if (!files.some((known) => known.id === entry.id)) remember(entry);
          }
        }
      }
      remember({
        ...file,
        ...(result.document.pageCount !== undefined && { pageCount: result.document.pageCount }),
        ...(isScannedDocument(result.document) && { scanned: true }),
        ...(documentLanguage(result.document) && { language: documentLanguage(result.document) }),
      });
      return result;
    } catch (error) {
      // A lasting reason shows in this run's files list too, as it will in the next run's (from the cache). Not
      // for an image: one without text to recognise can still be shown as a picture.
      if (error instanceof FileReadError && isLastingError(error.code) && !image) {
        remember({ ...file, error: { code: error.code, message: error.message } });
      }
      throw error;
    }
  };

  /** Keeps what we learn (page counts, new virtual files) in this run's list. */
  const remember = (file: ThreadFile) => {
    const index = files.findIndex((f) => f.id === file.id);
    if (index >= 0) files[index] = file;
    else files.push(file);
  };

  return {
    list: () => [...files],
    get,

    readText: async (id, signal) => (await readWithHash(id, signal)).document,

    async readBytes(id, signal) {
      const file = get(id);
      if (file.error) throw new FileReadError(file.error.code, file.error.message);
      if (file.slackFileId && !isResultFile(file)) {
        const { bytes, contentHash } = await source.readBytes(file, file.slackFileId, { maxBytes: options.limits.maxFileBytes, signal });
        return { file, bytes, contentHash };
      }
      // An extracted text or a query result: its text is what there is.
      const { document, contentHash } = await readWithHash(id, signal);
      const bytes = new TextEncoder().encode(document.text);
      return { file, bytes, contentHash: isResultFile(file) ? contentHash : createHash('sha256').update(bytes).digest('hex') };
    },

    addFile: (file) => remember(file),

    notePending(id, readyInSeconds) {
      const file = get(id);
      remember({ ...file, pending: { readyInSeconds } });
    },

    async readCachedText(id) {
      const file = sourceOf(get(id));
      if (file.error || !file.slackFileId || isImageFile(file)) return undefined;
      const cached = await findCachedRead(db, file.slackFileId);
      if (cached?.ok) openings.delete(file.id);
      return cached?.ok ? cached.document : openings.get(file.id);
    },

    async readOpening(id) {
      const { pending: _pending, ...file } = sourceOf(get(id));
      if (file.error) throw new FileReadError(file.error.code, file.error.message);
      const opening = await readDocument.opening(file);
      openings.set(file.id, opening);
      const known = get(file.id);
      if (opening.pageCount !== undefined && known.pageCount === undefined) remember({ ...known, pageCount: opening.pageCount });
      return opening;
    },

    async extract(id, signal) {
      const file = get(id);
      const { document } = await readWithHash(id, signal);
      if (file.sourceId || isResultFile(file)) return { file, document };
      const virtual = await registerVirtualFile(db, threadId, sourceOf(file), document);
      remember(virtual);
      return { file: virtual, document };
    },

    async readImage(id, signal): Promise<ShownImage> {
      const file = get(id);
      if (file.error) throw new FileReadError(file.error.code, file.error.message);
      if (!file.slackFileId || !isImageFile(file)) {
        throw new FileReadError(
          'unsupported',
          `${displayFileName(file.name)} is not an image, so there is nothing to show; read its text with load_file, peek_file or extract_file.`,
        );
      }
      return source.readImage(file, file.slackFileId, { maxImageBytes: options.limits.maxImageBytes, signal });
    },

    async search(id, query, limit, { signal, snippetChars } = {}) {
      if (!options.searcher) throw new Error('Search is not set up in this deployment; use peek_file to read the file in slices.');
      // A PDF's picture list is not text to search (and reading it decodes the pictures).
      const wanted = id.trim() === '*' ? files.filter((f) => !f.sourceId && !f.error && !isImageFile(f) && !isPdfPictureList(f)) : [get(id)];
      const contentHashes = new Map<string, string>();
      await mapConcurrently(wanted, SEARCH_EXTRACT_CONCURRENCY, async (file) => {
        try {
          contentHashes.set(file.id, (await readWithHash(file.id, signal)).contentHash);
        } catch (error) {
          // Searching one file: say why it cannot be searched. Searching all: the readable ones still count.
          if (wanted.length === 1 || signal?.aborted) throw error;
        }
      });
      const searchable = wanted.filter((f) => contentHashes.has(f.id)).map((f) => get(f.id));
      return options.searcher({ files: searchable, contentHashes, query, limit, snippetChars, signal });
    },
  };
}
