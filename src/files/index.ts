/**
 * files/: the thread's files as stable ids, read on demand. Registry (ids), access for the tools (download with the
 * bot token, extraction once, cache), preloads and prefetch. Extraction itself is in ./extract, search in ./search.
 */
export { registerThreadFiles, listThreadFiles, registerVirtualFile, type MessageFiles } from './registry';
export {
  createThreadFileAccess,
  type FileAccess,
  type Searcher,
  type ThreadFileAccessOptions,
} from './thread-file-access';
export type { DocumentExtractorLike, FileLimits } from './read-document';
export { computePreloads, type PreloadOptions } from './preload';
export { prefetchThreadFiles, type PrefetchOptions, type PrefetchResult } from './prefetch';
export { getDocumentForFile, findContentHashes, findTextLengths } from './file-store';
export { downloadSlackFile, type DownloadRequest } from './download';
export { describeFileError } from './describe-file-error';
export { FileDownloadError } from './file-download-error';
export { isImageFile, isTextLikeFile, isExtractableDocument } from '../core/file-kinds';
export { isSlackFileHost } from './slack-hosts';
export type { SlackFileObject } from './slack-file';
export type { SlackApi } from './slack-file-info';
export { FileReadError } from '../core/thread-file';
export type { ExtractedDocument, FileErrorCode, ThreadFile, TextSegment, OutlineEntry } from '../core/thread-file';
