/**
 * Bytes of unknown encoding to a string. UTF-8 is tried strictly first because chardet, on short or mostly-ASCII
 * samples, often guesses ISO-8859-x for perfectly good UTF-8; chardet decides only when UTF-8 is impossible.
 */
import chardet from 'chardet';
import iconv from 'iconv-lite';

export interface DecodedText {
  text: string;
  /** The encoding used, as iconv-lite names it ("utf-8", "shift_jis", "windows-1252"…). */
  encoding: string;
}

const sampleBytes = 64 * 1024;

export function decodeText(bytes: Uint8Array, declaredCharset?: string): DecodedText {
  const bom = encodingFromBom(bytes);
  if (bom) return { text: iconv.decode(Buffer.from(bytes.subarray(bom.length)), bom.encoding), encoding: bom.encoding };
  const utf8 = tryStrictUtf8(bytes);
  if (utf8 !== undefined) return { text: utf8, encoding: 'utf-8' };
  if (declaredCharset && iconv.encodingExists(declaredCharset)) {
    return { text: iconv.decode(Buffer.from(bytes), declaredCharset), encoding: declaredCharset.toLowerCase() };
  }
  const guessed = chardet.detect(bytes.subarray(0, sampleBytes));
  // ISO-8859-1 guesses are decoded as windows-1252, its superset that browsers use, so curly quotes survive.
  const encoding = !guessed || guessed === 'ISO-8859-1' || !iconv.encodingExists(guessed) ? 'windows-1252' : guessed;
  return { text: iconv.decode(Buffer.from(bytes), encoding), encoding: encoding.toLowerCase() };
}

function encodingFromBom(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

function tryStrictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
