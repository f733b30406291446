/**
 * Reads a response body into memory, hashing as it goes, and gives up the moment it passes the byte cap: a 1 GB
 * upload whose size was not declared costs at most the cap plus one chunk, never the whole gigabyte.
 */
import { createHash } from 'node:crypto';
import { ThreadwiseError } from '../../core/errors';

export interface CappedBody {
  bytes: Buffer;
  /** sha256 of the bytes, hex. */
  contentHash: string;
}

export class BodyTooLargeError extends ThreadwiseError<'body_too_large'> {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limitBytes: number) {
    super('body_too_large', `The response body passed ${limitBytes} bytes.`, { context: { limitBytes } });
  }
}

export async function readCappedBody(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<CappedBody> {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let total = 0;
  if (body) {
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > maxBytes) {
          // Cancelling closes the connection, so the server stops sending the rest.
          await reader.cancel().catch(() => {});
          throw new BodyTooLargeError(maxBytes);
        }
        hash.update(value);
        chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      }
    } finally {
      reader.releaseLock();
    }
  }
  return { bytes: Buffer.concat(chunks, total), contentHash: hash.digest('hex') };
}

/** Slack's sign-in page in place of a file: what a file URL answers when the bot may not see the file. */
export function looksLikeHtmlPage(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 1024).toString('latin1').replace(/^\u00ef\u00bb\u00bf/, '');
  return /^\s*(<!doctype\s+html|<html[\s>])/i.test(head);
}
