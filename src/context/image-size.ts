/**
 * Pixel size from an image data URL's header, so an image shown mid-run (no size given) is still counted by the
 * tile formula rather than the worst case. Only the first bytes are decoded: the rest of the base64 is never
 * touched, which matters for a 5 MB screenshot counted on every loop iteration.
 */

export interface ImageSize {
  width: number;
  height: number;
}

// Enough for PNG/GIF/WebP headers and a JPEG whose SOF follows a typical EXIF block.
const HEAD_BYTES = 64 * 1024;

export function readImageSize(dataUrl: string): ImageSize | undefined {
  const comma = dataUrl.indexOf(',');
  if (!dataUrl.startsWith('data:') || comma < 0 || !dataUrl.slice(0, comma).endsWith(';base64')) return undefined;
  // Base64 decodes in 4-character groups; cut on a group boundary.
  const headChars = Math.ceil((HEAD_BYTES * 4) / 3 / 4) * 4;
  const bytes = Buffer.from(dataUrl.slice(comma + 1, comma + 1 + headChars), 'base64');
  return readPngSize(bytes) ?? readGifSize(bytes) ?? readWebpSize(bytes) ?? readJpegSize(bytes);
}

function readPngSize(b: Buffer): ImageSize | undefined {
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47 || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return positive(b.readUInt32BE(16), b.readUInt32BE(20));
}

function readGifSize(b: Buffer): ImageSize | undefined {
  if (b.length < 10 || b.toString('latin1', 0, 4) !== 'GIF8') return undefined;
  return positive(b.readUInt16LE(6), b.readUInt16LE(8));
}

function readWebpSize(b: Buffer): ImageSize | undefined {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return positive(1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3));
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return positive((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8 ') return positive(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  return undefined;
}

function readJpegSize(b: Buffer): ImageSize | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let offset = 2;
  while (offset + 9 < b.length) {
    if (b[offset] !== 0xff) return undefined;
    const marker = b[offset + 1]!;
    // Fill bytes and markers without a length.
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    const length = b.readUInt16BE(offset + 2);
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return positive(b.readUInt16BE(offset + 7), b.readUInt16BE(offset + 5));
    }
    offset += 2 + length;
  }
  return undefined;
}

function positive(width: number, height: number): ImageSize | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}
