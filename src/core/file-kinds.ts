/**
 * What kind of file a ThreadFile is, from Slack's metadata alone (no bytes): enough to decide what to preload,
 * prefetch and show as an image. The extractor decides from the bytes when it reads them.
 */
import type { ThreadFile } from './thread-file';

type Kind = Pick<ThreadFile, 'mimeType' | 'fileType'>;

const IMAGE_TYPES = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'heic', 'heif', 'avif', 'tiff', 'tif', 'bmp', 'svg']);

/** Slack's short types for plain text and source code. */
const TEXT_TYPES = new Set([
  'text', 'txt', 'markdown', 'md', 'csv', 'tsv', 'json', 'yaml', 'yml', 'xml', 'log', 'ini', 'toml', 'sql', 'diff',
  'patch', 'shell', 'bash', 'javascript', 'typescript', 'python', 'java', 'go', 'rust', 'ruby', 'php', 'c', 'cpp',
  'csharp', 'kotlin', 'swift', 'scala', 'css', 'dockerfile',
]);

/** Documents whose text comes from an extractor; preloaded only once that text is cached. */
const DOCUMENT_TYPES = new Set([
  'pdf', 'docx', 'pptx', 'xlsx', 'html', 'htm', 'odt', 'rtf', 'doc', 'xls', 'ppt',
  // Slack's own documents: canvases (Slack calls them "quip" in file objects), posts, and their "space" type.
  'quip', 'canvas', 'post', 'space', 'docs',
]);

export function isImageFile(file: Kind): boolean {
  return file.mimeType.startsWith('image/') || IMAGE_TYPES.has(file.fileType.toLowerCase());
}

export function isTextLikeFile(file: Kind): boolean {
  if (isImageFile(file)) return false;
  const type = file.fileType.toLowerCase();
  if (TEXT_TYPES.has(type)) return true;
  if (DOCUMENT_TYPES.has(type)) return false;
  return /^text\/(?!html)/.test(file.mimeType) || /^application\/(json|xml|x-yaml|yaml|x-sh|javascript|sql)\b/.test(file.mimeType);
}

export function isExtractableDocument(file: Kind): boolean {
  return DOCUMENT_TYPES.has(file.fileType.toLowerCase()) || /^(application\/pdf|text\/html)\b/.test(file.mimeType) ||
    file.mimeType.startsWith('application/vnd.openxmlformats-officedocument.') ||
    /^application\/(msword|vnd\.ms-(excel|powerpoint)|vnd\.slack-)/.test(file.mimeType);
}

/** The source key prefix of a query result kept as a file of the thread ("F1.q1": files/result-file-key.ts). */
export const RESULT_KEY_PREFIX = 'result:';

/** A query_table result registered as a file of the thread: its text is the result as CSV. */
export function isResultFile(file: Pick<ThreadFile, 'slackFileId'>): boolean {
  return file.slackFileId?.startsWith(RESULT_KEY_PREFIX) === true;
}
