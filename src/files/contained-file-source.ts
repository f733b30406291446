/**
 * A FileSource that also serves files inside files: for a contained file's key (contained-file-key.ts) it reads
 * the container through the run's own source (Slack or disk) and takes the entry out. The last few containers'
 * bytes are kept for the run, so opening three logs of one zip downloads the zip once. A PDF's pictures are decoded
 * by the extraction workers (readPdfPicture), never on this thread.
 */
import { createHash } from 'node:crypto';
import { displayFileName, type ThreadFile } from '../core/thread-file';
import { splitContainedFileKey } from './contained-file-key';
import { fileReadError } from './describe-file-error';
import { readContainedFile } from '../documents/containers';
import { defaultLimits } from '../documents/task';
import type { FileSource } from './file-source';
import type { DocumentExtractorLike } from './read-document';
import { showImageBytes } from './show-image-bytes';

function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes('%PDF-');
}

const KEPT_CONTAINERS = 2;

/** Makes a PDF's listed picture ("page-3-image-1.png") into PNG bytes, in the extraction workers. */
export type PdfPictureReader = NonNullable<DocumentExtractorLike['readPdfPicture']>;

export function withContainedFiles(
  inner: FileSource,
  containerOf: (key: string) => ThreadFile | undefined,
  readPdfPicture?: PdfPictureReader,
): FileSource {
  const kept = new Map<string, Promise<Buffer>>();

  const containerBytes = (containerKey: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> => {
    let bytes = kept.get(containerKey);
    if (!bytes) {
      const container = containerOf(containerKey);
      if (!container) return Promise.reject(new Error(`The file that held ${containerKey} is not in this thread any more.`));
      bytes = inner.readBytes(container, containerKey, { maxBytes, signal }).then((read) => read.bytes);
      bytes.catch(() => kept.delete(containerKey));
      kept.set(containerKey, bytes);
      while (kept.size > KEPT_CONTAINERS) kept.delete(kept.keys().next().value!);
    }
    return bytes;
  };

  const entryBytes = async (file: ThreadFile, containerKey: string, path: string, maxBytes: number, signal?: AbortSignal) => {
    const container = await containerBytes(containerKey, maxBytes, signal);
    const name = displayFileName(containerOf(containerKey)?.name ?? 'the container');
    const entry = isPdf(container)
      ? await pictureOfPdf(container, name, path, signal)
      : await readContainedFile(container, name, path, defaultLimits);
    if (entry.byteLength > maxBytes) throw fileReadError(file, 'too_large', { sizeBytes: entry.byteLength, limitBytes: maxBytes });
    return Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength);
  };

  const pictureOfPdf = (container: Buffer, name: string, path: string, signal?: AbortSignal) => {
    if (!readPdfPicture) throw new Error(`Pictures inside PDFs can't be opened here (no extractor to decode ${path} of ${name}).`);
    // A copy of its own (moved to the worker): the kept container's bytes stay usable for the next picture.
    return readPdfPicture({ bytes: new Uint8Array(container), name, path, signal });
  };

  return {
    async readBytes(file, key, options) {
      const contained = splitContainedFileKey(key);
      if (!contained) return inner.readBytes(file, key, options);
      // A copy: the extractor may move these bytes to its worker, and the container's stay kept.
      const bytes = Buffer.from(await entryBytes(file, contained.containerKey, contained.path, options.maxBytes, options.signal));
      return { bytes, contentHash: createHash('sha256').update(bytes).digest('hex') };
    },
    async readImage(file, key, options) {
      const contained = splitContainedFileKey(key);
      if (!contained) return inner.readImage(file, key, options);
      const bytes = await entryBytes(file, contained.containerKey, contained.path, 64 * 1024 * 1024, options.signal);
      return showImageBytes(file, bytes, options.maxImageBytes);
    },
  };
}
