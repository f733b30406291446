/**
 * The FileSource of a process that answers from the local disk (the terminal chat, the evals): a file object's
 * address is a file: URL, and its bytes are read from there. Only file: URLs are read — an object with any other
 * address is refused — and only files the person at the keyboard named (their objects are in the run's messages).
 * Images over the byte cap go to the model as a smaller preview, as Slack's thumbnails do for Slack files.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { displayFileName, FileReadError, type ThreadFile } from '../core/thread-file';
import { fileReadError } from '../files/describe-file-error';
import type { FileObjects, FileSource } from '../files/file-source';
import { showImageBytes } from '../files/show-image-bytes';
import { codeOf } from '../core/errors';

export interface LocalFileSourceOptions {
  /** The file objects of the thread's messages; their `url_private` is a file: URL. */
  objects: FileObjects;
}

/** Images larger than this are not decoded for a preview: the decoder would hold several times as much memory. */
const MAX_IMAGE_DECODE_BYTES = 64 * 1024 * 1024;

export function createLocalFileSource(options: LocalFileSourceOptions): FileSource {
  const pathOf = (file: ThreadFile, key: string): string => {
    const address = options.objects.get(key)?.url_private;
    if (!address) {
      throw new FileReadError('deleted', `I can't open ${displayFileName(file.name)}: it is no longer attached to this conversation. Add it again.`);
    }
    const url = new URL(address);
    if (url.protocol !== 'file:') {
      throw new FileReadError('no_access', `I can't open ${displayFileName(file.name)}: I only read files from this computer's disk here.`);
    }
    return fileURLToPath(url);
  };

  const readCapped = async (file: ThreadFile, path: string, maxBytes: number): Promise<Buffer> => {
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new FileReadError('unsupported', `I can't read ${displayFileName(file.name)}: ${path} is not a file.`);
      if (info.size > maxBytes) throw fileReadError(file, 'too_large', { sizeBytes: info.size, limitBytes: maxBytes });
      const bytes = await readFile(path);
      // It may have grown between the two calls.
      if (bytes.length > maxBytes) throw fileReadError(file, 'too_large', { sizeBytes: bytes.length, limitBytes: maxBytes });
      return bytes;
    } catch (error) {
      throw describeDiskError(file, path, error);
    }
  };

  return {
    async readBytes(file, key, { maxBytes }) {
      const bytes = await readCapped(file, pathOf(file, key), maxBytes);
      return { bytes, contentHash: createHash('sha256').update(bytes).digest('hex') };
    },

    async readImage(file, key, { maxImageBytes }) {
      const bytes = await readCapped(file, pathOf(file, key), MAX_IMAGE_DECODE_BYTES);
      return showImageBytes(file, bytes, maxImageBytes);
    },
  };
}

/** A file system error → the sentence for the person who named the file. */
function describeDiskError(file: ThreadFile, path: string, error: unknown): unknown {
  if (error instanceof FileReadError) return error;
  const code = codeOf(error);
  const name = displayFileName(file.name);
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new FileReadError('deleted', `I can't open ${name}: it is no longer at ${path} (moved or deleted since it was added).`, { cause: error });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new FileReadError('no_access', `I can't open ${name}: this process may not read ${path}.`, { cause: error });
  }
  if (code === 'EISDIR') return new FileReadError('unsupported', `I can't read ${name}: ${path} is a folder, not a file.`, { cause: error });
  return error;
}
