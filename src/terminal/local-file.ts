/**
 * A file from this computer's disk, named by the person at the keyboard (`--file`, `/file`), as a file object of
 * the thread: the same shape Slack gives a shared file, with a file: URL as its address and an id of its own
 * (`local:` and 16 hex digits, which no Slack file id looks like). Each time a file is added it is a new upload,
 * as in Slack; the files/ local source reads its bytes from that URL when a run needs them.
 *
 * What can be known before a run is checked here, so a wrong path or a file threadwise cannot read is one sentence
 * at once rather than a surprise in the answer; what only the bytes can tell (a damaged PDF, a password) is left to
 * extraction, exactly as for a file shared in Slack.
 */
import { randomBytes } from 'node:crypto';
import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { codeOf, messageOf, ThreadwiseError, type ThreadwiseErrorOptions } from '../core/errors';
import { formatBytes } from '../core/format';
import { detectDocumentKind, type DocumentKind } from '../documents';
import { detectImageFormat, imageMimeType, SHOWABLE_IMAGE_FORMATS } from '../files/image-format';
import type { SlackFileObject } from '../core/slack-file';

/** A path the person gave that cannot be added; the message is the sentence to show them. */
export class LocalFileError extends ThreadwiseError<'local_file_refused'> {
  override readonly name = 'LocalFileError';
  constructor(message: string, options?: ThreadwiseErrorOptions) {
    super('local_file_refused', message, options);
  }
}

export interface LocalFile {
  /** The file object for the thread's message. */
  object: SlackFileObject;
  /** Resolved, symlinks followed. */
  path: string;
  kind: DocumentKind;
  /** For telling a re-added, unchanged file from a new version. */
  modifiedMs: number;
}

/** Enough of the head of a file to tell its kind (detect-kind.ts looks at most this far). */
const HEAD_BYTES = 8192;

const MIME_TYPES: Partial<Record<DocumentKind, string>> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv',
  html: 'text/html',
  text: 'text/plain',
};

const READABLE = 'PDF, Word (DOCX), PowerPoint (PPTX), Excel (XLSX), CSV, HTML, text or code, and PNG, JPEG, GIF or WebP images';

/** Checks `given` (relative to `cwd`) and makes its file object. Throws LocalFileError with the sentence to show. */
export async function describeLocalFile(given: string, options: { cwd?: string; maxFileBytes: number }): Promise<LocalFile> {
  const shown = given.trim();
  if (!shown) throw new LocalFileError('Name a file to add, e.g. /file ./report.pdf');
  const resolved = path.resolve(options.cwd ?? process.cwd(), expandHome(shown));
  let real: string;
  let info;
  try {
    real = await realpath(resolved);
    info = await stat(real);
  } catch (error) {
    throw new LocalFileError(describeDiskError(shown, error), { cause: error, context: { file: shown } });
  }
  if (info.isDirectory()) throw new LocalFileError(`${shown} is a folder; name a file in it.`);
  if (!info.isFile()) throw new LocalFileError(`${shown} is not a regular file.`);
  if (info.size > options.maxFileBytes) {
    throw new LocalFileError(
      `${shown} is ${formatBytes(info.size)}, and threadwise reads files up to ${formatBytes(options.maxFileBytes)} (MAX_FILE_MB).`,
    );
  }
  let head: Buffer;
  try {
    head = await readHead(real);
  } catch (error) {
    throw new LocalFileError(describeDiskError(shown, error), { cause: error, context: { file: shown } });
  }
  const name = path.basename(real);
  const kind = detectDocumentKind(head, name);
  if (kind === 'unsupported') {
    throw new LocalFileError(`${name} is not a kind of file threadwise reads; it reads ${READABLE}.`);
  }
  let mimetype = MIME_TYPES[kind] ?? 'application/octet-stream';
  if (kind === 'image') {
    const format = detectImageFormat(head);
    if (!format) throw new LocalFileError(`${name} is not an image threadwise can look at; it looks at PNG, JPEG, GIF and WebP images.`);
    if (!SHOWABLE_IMAGE_FORMATS.has(format)) {
      throw new LocalFileError(`${name} is a ${format.toUpperCase()} image, and models take PNG, JPEG, GIF and WebP; save it as PNG or JPEG and add that.`);
    }
    mimetype = imageMimeType(format);
  }
  return {
    path: real,
    kind,
    modifiedMs: info.mtimeMs,
    object: {
      id: `local:${randomBytes(8).toString('hex')}`,
      name,
      title: name,
      mimetype,
      filetype: fileTypeOf(name, kind),
      size: info.size,
      mode: 'hosted',
      url_private: pathToFileURL(real).href,
    },
  };
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Slack's short type: the extension for most files, "text" for text without one. */
function fileTypeOf(name: string, kind: DocumentKind): string {
  const extension = path.extname(name).slice(1).toLowerCase();
  if (extension) return extension;
  return kind === 'image' ? 'png' : kind;
}

function expandHome(given: string): string {
  const home = process.env.HOME;
  return home && (given === '~' || given.startsWith('~/')) ? path.join(home, given.slice(1)) : given;
}

function describeDiskError(shown: string, error: unknown): string {
  const code = codeOf(error);
  if (code === 'ENOENT' || code === 'ENOTDIR') return `There is no file at ${shown}.`;
  if (code === 'EACCES' || code === 'EPERM') return `${shown} cannot be read: permission denied.`;
  if (code === 'ELOOP') return `${shown} is a symbolic link that leads in a circle.`;
  return `${shown} could not be opened (${messageOf(error)}).`;
}
