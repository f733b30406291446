/**
 * The sentences a thread sees when a file cannot be read. Kept in one place so every format says the same thing
 * the same way, and so each names the file: the message is posted as it is.
 */
import { FileReadError } from '../core/thread-file';

export function encryptedError(name: string): FileReadError {
  return new FileReadError('encrypted', `${name} is password-protected, so I can't read it. Share an unprotected copy?`);
}

export function noTextLayerError(name: string, pageCount: number): FileReadError {
  const pages = pageCount === 1 ? 'its one page is' : `all ${pageCount} pages are`;
  return new FileReadError(
    'no_text_layer',
    `${name} has no text layer (${pages} images only), so there is no text I can read in it.`,
  );
}

export function corruptError(name: string, why: string, cause?: unknown): FileReadError {
  return new FileReadError(
    'corrupt',
    `${name} looks damaged or incomplete (${why}), so I can't read it. Could you upload it again?`,
    { cause },
  );
}

export function emptyFileError(name: string): FileReadError {
  return new FileReadError('empty', `${name} is empty (0 bytes), so there is nothing to read.`);
}

/** A non-empty file that yielded no characters: a failure, never an empty success. */
export function noTextError(name: string): FileReadError {
  return new FileReadError('empty', `${name} contains no text that I could extract.`);
}

export function zipBombError(name: string, why: string): FileReadError {
  return new FileReadError('too_large', `${name} unpacks to too much data (${why}), so I did not open it.`);
}

export function unsupportedError(name: string, what: string): FileReadError {
  return new FileReadError('unsupported', `${name} is ${what}, which I can't extract text from.`);
}

export function timeoutError(name: string, timeoutMs: number): FileReadError {
  return new FileReadError(
    'timeout',
    `Reading ${name} took longer than ${formatSeconds(timeoutMs)}, so I stopped. A smaller or simpler file may work.`,
  );
}

export function outOfMemoryError(name: string, maxMemoryMb: number): FileReadError {
  return new FileReadError(
    'out_of_memory',
    `Reading ${name} needed more than the ${maxMemoryMb} MB of memory I allow per file, so I stopped.`,
  );
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  if (seconds >= 1) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  return `${ms} ms`;
}
