/**
 * Which reader a file needs. Magic bytes win over the name because Slack names are whatever the uploader typed;
 * the extension and MIME type decide only when the bytes say nothing (text formats, or too few bytes to tell).
 */

export type DocumentKind =
  | 'pdf'
  | 'docx'
  | 'pptx'
  | 'xlsx'
  | 'doc'
  | 'xls'
  | 'ppt'
  | 'zip'
  | 'eml'
  | 'msg'
  | 'csv'
  | 'html'
  | 'text'
  | 'image'
  | 'unsupported';

const ooxmlByEntry: Array<[string, DocumentKind]> = [
  ['word/document.xml', 'docx'],
  ['ppt/presentation.xml', 'pptx'],
  ['xl/workbook.xml', 'xlsx'],
];

const kindByExtension: Record<string, DocumentKind> = {
  pdf: 'pdf',
  docx: 'docx',
  docm: 'docx',
  pptx: 'pptx',
  pptm: 'pptx',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  doc: 'doc',
  dot: 'doc',
  xls: 'xls',
  xlt: 'xls',
  ppt: 'ppt',
  pps: 'ppt',
  pot: 'ppt',
  zip: 'zip',
  eml: 'eml',
  msg: 'msg',
  csv: 'csv',
  tsv: 'csv',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  bmp: 'image',
  tif: 'image',
  tiff: 'image',
  heic: 'image',
  svg: 'image',
};

const kindByMime: Record<string, DocumentKind> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/msword': 'doc',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.ms-powerpoint': 'ppt',
  'application/zip': 'zip',
  'application/x-zip-compressed': 'zip',
  'message/rfc822': 'eml',
  'application/vnd.ms-outlook': 'msg',
  // Slack's canvases and posts download as HTML whatever their file name says.
  'application/vnd.slack-docs': 'html',
  'application/vnd.slack-canvas': 'html',
  'text/csv': 'csv',
  'text/tab-separated-values': 'csv',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
};

/** Text formats we read as text whatever their MIME type says (logs often arrive as application/octet-stream). */
const textExtensions = new Set(
  ('txt md markdown rst adoc org log json jsonl ndjson yaml yml toml ini cfg conf env xml sql graphql proto ' +
    'js mjs cjs ts tsx jsx py rb go rs java kt kts scala swift c h cc cpp hpp cs php pl sh bash zsh fish ps1 ' +
    'r lua dart ex exs erl hs clj vue svelte css scss less tex diff patch properties gradle tf hcl dockerfile makefile')
    .split(' '),
);

export function detectDocumentKind(bytes: Uint8Array, name: string, mimeType?: string): DocumentKind {
  const fromMagic = detectByMagic(bytes, name, mimeType);
  if (fromMagic) return fromMagic;
  const extension = extensionOf(name);
  const mime = mimeType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const declared = kindByExtension[extension] ?? kindByMime[mime];
  if (declared) return declared;
  if (mime.startsWith('image/')) return 'image';
  if (textExtensions.has(extension) || mime.startsWith('text/') || /json|xml|javascript|yaml/.test(mime)) {
    return looksLikeHtml(bytes) ? 'html' : 'text';
  }
  if (bytes.length === 0 || looksBinary(bytes)) return 'unsupported';
  return looksLikeHtml(bytes) ? 'html' : 'text';
}

function detectByMagic(bytes: Uint8Array, name: string, mimeType?: string): DocumentKind | undefined {
  if (indexOfAscii(bytes, '%PDF-', 0, 1024) !== -1) return 'pdf';
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) {
    // Entry names are stored uncompressed, in the local headers and again in the central directory, so a
    // truncated zip is still recognised from its local headers.
    for (const [entry, kind] of ooxmlByEntry) if (indexOfAscii(bytes, entry) !== -1) return kind;
    // Any other zip is an archive of files (a zip named .docx without Word's parts is a broken .docx).
    return officeKindOf(name, mimeType) ?? 'zip';
  }
  // OLE compound file: an encrypted OOXML package, or a legacy .doc/.xls/.ppt. The extractors tell which.
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return officeKindOf(name, mimeType) ?? legacyKindOf(bytes) ?? 'unsupported';
  }
  if (isImage(bytes)) return 'image';
  return undefined;
}

function officeKindOf(name: string, mimeType?: string): DocumentKind | undefined {
  const kind = kindByExtension[extensionOf(name)] ?? kindByMime[mimeType?.split(';')[0]?.trim().toLowerCase() ?? ''];
  return kind === 'docx' || kind === 'pptx' || kind === 'xlsx' || kind === 'doc' || kind === 'xls' || kind === 'ppt' || kind === 'msg'
    ? kind
    : undefined;
}

/** An OLE file named without its extension: its stream names (UTF-16 in the directory) say which program wrote it. */
function legacyKindOf(bytes: Uint8Array): DocumentKind | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.includes('EncryptedPackage', 0, 'utf16le')) return undefined;
  if (buffer.includes('__substg1.0_', 0, 'utf16le')) return 'msg';
  if (buffer.includes('WordDocument', 0, 'utf16le')) return 'doc';
  if (buffer.includes('Workbook', 0, 'utf16le') || buffer.includes('Book', 0, 'utf16le')) return 'xls';
  if (buffer.includes('PowerPoint Document', 0, 'utf16le')) return 'ppt';
  return undefined;
}

function isImage(bytes: Uint8Array): boolean {
  return (
    startsWith(bytes, [0x89, 0x50, 0x4e, 0x47]) || // PNG
    startsWith(bytes, [0xff, 0xd8, 0xff]) || // JPEG
    indexOfAscii(bytes, 'GIF8', 0, 4) === 0 ||
    (indexOfAscii(bytes, 'RIFF', 0, 4) === 0 && indexOfAscii(bytes, 'WEBP', 8, 12) === 8) ||
    startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || // TIFF, little-endian
    startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a]) || // TIFF, big-endian
    (indexOfAscii(bytes, 'ftyp', 4, 8) === 4 && /^(heic|heix|avif|mif1)/.test(asciiAt(bytes, 8, 4)))
  );
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = asciiAt(bytes, 0, 512).replace(/^\uFEFF?\s*/, '').toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
}

/** NUL bytes do not occur in text, except in UTF-16/32, which announces itself with a BOM or alternating zeros. */
function looksBinary(bytes: Uint8Array): boolean {
  if (startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff])) return false;
  const sample = bytes.subarray(0, 8192);
  let nulAtEven = 0;
  let nulAtOdd = 0;
  for (let i = 0; i < sample.length; i++) if (sample[i] === 0) (i % 2 ? nulAtOdd++ : nulAtEven++);
  const half = sample.length / 2;
  const utf16WithoutBom = (nulAtOdd > half * 0.3 && nulAtEven === 0) || (nulAtEven > half * 0.3 && nulAtOdd === 0);
  return nulAtEven + nulAtOdd > 0 && !utf16WithoutBom;
}

function extensionOf(name: string): string {
  const base = name.toLowerCase().split(/[\\/]/).pop() ?? '';
  if (base === 'dockerfile' || base === 'makefile') return base;
  const dot = base.lastIndexOf('.');
  return dot === -1 ? '' : base.slice(dot + 1);
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

function asciiAt(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length));
}

function indexOfAscii(bytes: Uint8Array, needle: string, from = 0, to = bytes.length): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(to, bytes.length)).indexOf(needle, from, 'latin1');
}
