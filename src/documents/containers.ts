/**
 * Files inside files: the entries of a .zip (and of a .zip inside it, one level down), the attachments of an
 * .eml, the pictures embedded in a .docx. The worker lists them when it reads the container (readers below); the
 * main thread takes one out (readContainedFile) when a tool opens it as a virtual file "F3/logs/app.log". The zip
 * checks are the ones Office files get: declared sizes and expansion ratio are read before anything is inflated.
 */
import { unzip, unzipSync, type Unzipped } from 'fflate';
import type { ContainedFile, ExtractedDocument } from '../core/thread-file';
import { formatBytes, formatCount } from '../core/format';
import { DocumentBuilder } from './document-builder';
import { convertHtmlToMarkdown } from './html-to-markdown';
import { loadJsdom } from './libraries';
import { checkZipSizes } from './office-container';
import { corruptError, encryptedError, noTextError } from './read-errors';
import type { ExtractLimits } from './task';
import { messageOf } from '../core/errors';

/** Entries listed per archive at most; an archive of 100,000 files is listed in part, and says so. */
const MAX_ENTRIES = 1_000;

const ARCHIVE = /\.zip$/i;

/** MIME types by extension, for entries: archives carry no types, and the tools pick by them. */
const MIME_BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  zip: 'application/zip',
  eml: 'message/rfc822',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  emf: 'image/emf',
  wmf: 'image/wmf',
  svg: 'image/svg+xml',
};

export function mimeTypeOfPath(path: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '';
  return MIME_BY_EXTENSION[extension] ?? 'text/plain';
}

/** Slack-style short type for an entry ("log", "pdf", "png"), from its extension. */
export function fileTypeOfPath(path: string): string {
  return /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? 'text';
}

interface ZipListing {
  entries: ContainedFile[];
  notes: string[];
}

/** The files of a zip (folders and macOS resource forks left out), and of zips inside it, one level down. */
function listZip(bytes: Uint8Array, name: string, limits: ExtractLimits): ZipListing {
  checkZipSizes(bytes, name, limits);
  const entries: ContainedFile[] = [];
  const notes: string[] = [];
  const nested: string[] = [];
  let total = 0;
  unzipSync(bytes, {
    filter(file) {
      if (file.name.endsWith('/') || /(^|\/)__MACOSX\//.test(file.name)) return false;
      total++;
      if (entries.length < MAX_ENTRIES) {
        entries.push({ path: file.name, sizeBytes: file.originalSize, mimeType: mimeTypeOfPath(file.name) });
      }
      if (ARCHIVE.test(file.name)) nested.push(file.name);
      return false;
    },
  });
  // One level down: a zip inside the zip is opened (its own checks apply); deeper ones are listed, not opened.
  for (const inner of nested) {
    const innerBytes = unzipSync(bytes, { filter: (file) => file.name === inner })[inner];
    if (!innerBytes) continue;
    try {
      const listing = listZipLevel(innerBytes, `${name}/${inner}`, limits);
      for (const entry of listing) {
        total++;
        if (entries.length < MAX_ENTRIES) entries.push({ ...entry, path: `${inner}/${entry.path}` });
      }
      if (listing.some((entry) => ARCHIVE.test(entry.path))) notes.push(`archives inside ${inner} are listed, not opened (one level of nesting)`);
    } catch (error) {
      notes.push(`${inner} could not be opened: ${messageOf(error)}`);
    }
  }
  if (total > entries.length) notes.push(`${formatCount(total - entries.length)} of ${formatCount(total)} entries not listed (at most ${formatCount(MAX_ENTRIES)})`);
  return { entries, notes };
}

function listZipLevel(bytes: Uint8Array, name: string, limits: ExtractLimits): ContainedFile[] {
  checkZipSizes(bytes, name, limits);
  const entries: ContainedFile[] = [];
  unzipSync(bytes, {
    filter(file) {
      if (!file.name.endsWith('/') && !/(^|\/)__MACOSX\//.test(file.name)) {
        entries.push({ path: file.name, sizeBytes: file.originalSize, mimeType: mimeTypeOfPath(file.name) });
      }
      return false;
    },
  });
  return entries;
}

export async function readZip(bytes: Uint8Array, name: string, limits: ExtractLimits): Promise<ExtractedDocument> {
  const { entries, notes } = listZip(bytes, name, limits);
  if (entries.length === 0) throw noTextError(name);
  const builder = new DocumentBuilder();
  builder.appendHeading(`# Files in ${name}\n\n`, `Files in ${name}`, 1);
  builder.append(`${formatCount(entries.length)} files; each opens as its own file with the id shown in the files list.\n\n`);
  for (const entry of entries) builder.append(`- ${entry.path} (${formatBytes(entry.sizeBytes)})\n`);
  for (const note of notes) builder.addNote(note);
  const document = builder.build();
  document.entries = entries;
  return document;
}

/** An email: its headers and body as the text, its attachments as contained files. */
export async function readEml(bytes: Uint8Array, name: string): Promise<ExtractedDocument> {
  const email = await parseEmail(bytes, name);
  const builder = new DocumentBuilder();
  const subject = email.subject?.trim() || '(no subject)';
  builder.appendHeading(`# ${subject}\n\n`, subject, 1);
  const header = (label: string, value: string | undefined) => {
    if (value) builder.append(`${label}: ${value}\n`);
  };
  header('From', formatAddresses(email.from ? [email.from] : []));
  header('To', formatAddresses(email.to ?? []));
  header('Cc', formatAddresses(email.cc ?? []));
  header('Date', email.date);
  const attachments = attachmentsOf(email);
  header('Attachments', attachments.map((a) => `${a.path} (${formatBytes(a.sizeBytes)})`).join(', '));
  const body = email.text?.trim() || (email.html ? await htmlToText(email.html) : '');
  builder.appendBlock(body || '(no message text)');
  builder.append('\n');
  const document = builder.build();
  if (attachments.length) document.entries = attachments.map(({ path, sizeBytes, mimeType }) => ({ path, sizeBytes, mimeType }));
  return document;
}

type Email = Awaited<ReturnType<typeof parseEmail>>;

async function parseEmail(bytes: Uint8Array, name: string) {
  const { default: PostalMime } = await import('postal-mime');
  try {
    return await PostalMime.parse(bytes, { attachmentEncoding: 'arraybuffer' });
  } catch (error) {
    throw corruptError(name, 'its email structure is unreadable', error);
  }
}

/** Attachments with unique paths: their file names, numbered when two share one, invented when missing. */
function attachmentsOf(email: Email): Array<ContainedFile & { content: Uint8Array }> {
  const seen = new Map<string, number>();
  return email.attachments
    .filter((a) => !a.related) // pictures the HTML body shows inline (logos, signatures) are part of the body
    .map((attachment, index) => {
      const extension = Object.entries(MIME_BY_EXTENSION).find(([, mime]) => mime === attachment.mimeType)?.[0] ?? 'bin';
      const base = (attachment.filename?.replace(/[\\/]/g, '_').trim() || `attachment-${index + 1}.${extension}`).slice(0, 200);
      const count = (seen.get(base) ?? 0) + 1;
      seen.set(base, count);
      const path = count === 1 ? base : base.replace(/(\.[^.]*)?$/, (ext) => ` (${count})${ext}`);
      const content = attachment.content instanceof ArrayBuffer ? new Uint8Array(attachment.content) : attachment.content as Uint8Array;
      return { path, sizeBytes: content.byteLength, mimeType: attachment.mimeType || mimeTypeOfPath(path), content };
    });
}

function formatAddresses(addresses: Array<{ name?: string; address?: string; group?: unknown[] }>): string {
  return addresses.map((a) => (a.name && a.address ? `${a.name} <${a.address}>` : (a.address ?? a.name ?? ''))).filter(Boolean).join(', ');
}

/** An HTML-only email's body; mail HTML is hand-written and messy, so it gets the real parser. */
async function htmlToText(html: string): Promise<string> {
  const { JSDOM, VirtualConsole } = await loadJsdom();
  const dom = new JSDOM(html, { virtualConsole: new VirtualConsole() });
  try {
    const root = dom.window.document.body ?? dom.window.document.documentElement;
    return convertHtmlToMarkdown(root, { dropBoilerplate: true, keepLinks: false }).markdown.trim();
  } finally {
    dom.window.close();
  }
}

/**
 * An Outlook .msg (an OLE file): subject, people, date and plain-text body, with its attachments named. Their
 * contents are not opened as files (saving the mail as .eml, or the attachment itself, makes that possible).
 */
export async function readMsg(bytes: Uint8Array, name: string): Promise<ExtractedDocument> {
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('EncryptedPackage', 0, 'utf16le')) throw encryptedError(name);
  const { default: MsgReader } = (await import('@kenjiuno/msgreader')) as unknown as { default: typeof import('@kenjiuno/msgreader').default };
  let data;
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    data = new MsgReader(view).getFileData();
  } catch (error) {
    throw corruptError(name, 'its Outlook message structure is unreadable', error);
  }
  if (data.error) throw corruptError(name, data.error);
  const builder = new DocumentBuilder();
  const subject = data.subject?.trim() || '(no subject)';
  builder.appendHeading(`# ${subject}\n\n`, subject, 1);
  const sender = data.senderName && data.senderEmail ? `${data.senderName} <${data.senderEmail}>` : (data.senderEmail ?? data.senderName);
  if (sender) builder.append(`From: ${sender}\n`);
  const recipients = (data.recipients ?? []).map((r) => (r.name && r.email ? `${r.name} <${r.email}>` : (r.email ?? r.name ?? ''))).filter(Boolean);
  if (recipients.length) builder.append(`To: ${recipients.join(', ')}\n`);
  if (data.messageDeliveryTime ?? data.clientSubmitTime) builder.append(`Date: ${data.messageDeliveryTime ?? data.clientSubmitTime}\n`);
  const attachments = (data.attachments ?? []).map((a) => a.fileName ?? a.name ?? 'attachment').filter(Boolean);
  if (attachments.length) {
    builder.append(`Attachments: ${attachments.join(', ')}\n`);
    builder.addNote(`the attachments of an Outlook .msg are named, not opened; save the mail as .eml to open them`);
  }
  builder.appendBlock(data.body?.trim() || '(no plain-text body)');
  builder.append('\n');
  return builder.build();
}

/**
 * The bytes of one contained file, taken out of its container's bytes: a zip entry (through a zip inside it, one
 * level down, when the path goes there), an email attachment, or a picture of a DOCX. Inflating runs off the main
 * thread (fflate's async unzip). Throws a FileReadError sentence when the path is not there.
 */
export async function readContainedFile(container: Uint8Array, containerName: string, path: string, limits: ExtractLimits): Promise<Uint8Array> {
  if (container[0] === 0x50 && container[1] === 0x4b) {
    checkZipSizes(container, containerName, limits);
    const direct = await unzipOne(container, path);
    if (direct) return direct;
    const slash = path.indexOf('/');
    for (let at = slash; at !== -1; at = path.indexOf('/', at + 1)) {
      const inner = path.slice(0, at);
      if (!ARCHIVE.test(inner)) continue;
      const innerBytes = await unzipOne(container, inner);
      if (!innerBytes) continue;
      checkZipSizes(innerBytes, `${containerName}/${inner}`, limits);
      const found = await unzipOne(innerBytes, path.slice(at + 1));
      if (found) return found;
    }
  } else {
    const email = await parseEmail(container, containerName);
    const found = attachmentsOf(email).find((attachment) => attachment.path === path);
    if (found) return found.content;
  }
  throw corruptError(`${containerName}/${path}`, `${path} is no longer inside ${containerName}`);
}

function unzipOne(bytes: Uint8Array, path: string): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    unzip(bytes, { filter: (file) => file.name === path }, (error, files: Unzipped) => (error ? reject(error) : resolve(files[path])));
  });
}
