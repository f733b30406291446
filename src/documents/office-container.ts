/**
 * Checks a DOCX/XLSX/PPTX container before any library inflates it: encrypted Office files are not zips at all
 * (an OLE compound file holding an "EncryptedPackage" stream), truncated uploads lose the zip's central directory,
 * and a zip bomb declares its uncompressed sizes up front, so all three are caught without inflating a byte.
 * A bomb that lies about its sizes is still stopped by the worker's memory limit.
 */
import { unzipSync } from 'fflate';
import { corruptError, encryptedError, unsupportedError, zipBombError } from './read-errors';
import type { ExtractLimits } from './task';

const cfbMagic = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** Ratio checks only matter once the total is big enough to hurt; small XML-heavy files reach 30× honestly. */
const ratioCheckFloorBytes = 20 * 1024 * 1024;

export function checkOfficeContainer(bytes: Uint8Array, name: string, limits: ExtractLimits): void {
  if (cfbMagic.every((b, i) => bytes[i] === b)) {
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('EncryptedPackage', 0, 'utf16le')) {
      throw encryptedError(name);
    }
    throw unsupportedError(name, 'an old binary Office file (.doc/.xls/.ppt); saving it as .docx/.xlsx/.pptx would work');
  }
  checkZipSizes(bytes, name, limits);
}

/** The zip-bomb checks alone, for any zip (archives shared as such, and zips inside them). */
export function checkZipSizes(bytes: Uint8Array, name: string, limits: ExtractLimits): void {
  const declared = sumDeclaredSizes(bytes, name);
  if (declared > limits.maxUnzippedBytes) {
    throw zipBombError(name, `${formatMb(declared)} declared, the limit is ${formatMb(limits.maxUnzippedBytes)}`);
  }
  const ratio = declared / Math.max(1, bytes.length);
  if (declared > ratioCheckFloorBytes && ratio > limits.maxZipRatio) {
    throw zipBombError(name, `it expands ${Math.round(ratio)}× to ${formatMb(declared)}`);
  }
}

/** Reads the central directory only: the filter sees every entry's declared size and declines to inflate it. */
function sumDeclaredSizes(bytes: Uint8Array, name: string): number {
  let entries = 0;
  let declared = 0;
  try {
    unzipSync(bytes, {
      filter(file) {
        entries++;
        declared += file.originalSize;
        return false;
      },
    });
  } catch (error) {
    throw corruptError(name, 'its zip structure is incomplete, as if the upload was cut off', error);
  }
  if (entries === 0) throw corruptError(name, 'the zip holds no files');
  return declared;
}

function formatMb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}
