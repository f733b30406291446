/**
 * Files in the fake workspace and their downloads. Slack's file URLs are the part apps most often get wrong: a
 * download without the bot token, or with a token the bot cannot use, does not fail with 401 — it answers with a
 * sign-in page (HTML, often 200). The fake reproduces exactly that so "HTML means no access" is tested.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sendText } from './http';
import type { AddFileInput, FileAccess, SlackFileObject } from './slack-types';

interface FileEntry {
  object: SlackFileObject;
  access: FileAccess;
  content: AddFileInput['content'];
  thumbs: Record<string, Buffer>;
}

export interface DownloadRecord {
  path: string;
  /** Whether the request carried `Authorization: Bearer <botToken>` (the right token, not just any header). */
  authorized: boolean;
  status: number;
}

const SIGN_IN_PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Slack</title></head>
<body><div id="page"><h1>Sign in to your workspace</h1><form action="/signin" method="post">
<input type="email" name="email" placeholder="name@work-email.com"><button type="submit">Sign In</button></form>
</div></body></html>`;

const EXTENSION_TYPES: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/plain': 'text',
  'text/csv': 'csv',
  'text/html': 'html',
  'text/markdown': 'markdown',
  'application/json': 'json',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/zip': 'zip',
};

function guessFiletype(name: string, mimetype: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (ext) return ext === 'txt' ? 'text' : ext === 'md' ? 'markdown' : ext;
  return EXTENSION_TYPES[mimetype] ?? 'binary';
}

/** Width and height from a PNG or JPEG header, so image file objects carry original_w/h like Slack's. */
function imageSize(bytes: Buffer): { w: number; h: number } | undefined {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47) return { w: bytes.readUInt32BE(16), h: bytes.readUInt32BE(20) };
  if (bytes.length > 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1]!;
      const length = bytes.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { h: bytes.readUInt16BE(i + 5), w: bytes.readUInt16BE(i + 7) };
      }
      i += 2 + length;
    }
  }
  return undefined;
}

const MIME_BY_EXTENSION: Record<string, string> = Object.fromEntries(
  Object.entries(EXTENSION_TYPES).map(([mime, ext]) => [ext, mime]),
);

export class FileStore {
  private readonly files = new Map<string, FileEntry>();
  /** files.getUploadURLExternal reservations, filled by the upload POST, turned into files on completion. */
  private readonly uploads = new Map<string, { filename: string; length: number; content?: Buffer }>();
  private counter = 0;
  readonly downloads: DownloadRecord[] = [];

  constructor(
    private readonly origin: string,
    private readonly teamId: string,
    private readonly botToken: string,
  ) {}

  add(input: AddFileInput): SlackFileObject {
    this.counter += 1;
    const id = input.id ?? `F0FAKE${String(this.counter).padStart(5, '0')}`;
    const access = input.access ?? 'ok';
    const filetype = input.filetype ?? guessFiletype(input.name, input.mimetype);
    const bytes = typeof input.content === 'function' ? undefined : Buffer.from(input.content);
    const name = encodeURIComponent(input.name);
    const created = 1_700_000_000 + this.counter;
    const object: SlackFileObject = {
      id,
      created,
      timestamp: created,
      name: input.name,
      title: input.name,
      mimetype: input.mimetype,
      filetype,
      pretty_type: filetype.toUpperCase(),
      user: input.user ?? 'U0UPLOADER',
      user_team: this.teamId,
      editable: false,
      size: input.declaredSize ?? bytes?.length ?? 0,
      mode: 'hosted',
      is_external: false,
      external_type: '',
      is_public: false,
      public_url_shared: false,
      display_as_bot: false,
      url_private: `${this.origin}/files/${id}/${name}`,
      url_private_download: `${this.origin}/files/${id}/download/${name}`,
      permalink: `${this.origin}/files/${input.user ?? 'U0UPLOADER'}/${id}/${name}`,
      file_access: 'visible',
    };
    if (bytes && input.mimetype.startsWith('image/')) {
      const size = imageSize(bytes);
      if (size) {
        object.original_w = size.w;
        object.original_h = size.h;
      }
    }
    for (const key of Object.keys(input.thumbs ?? {})) {
      (object as unknown as Record<string, unknown>)[key] = `${this.origin}/files-tmb/${id}/${key}`;
    }
    if (access === 'external') {
      object.mode = 'external';
      object.is_external = true;
      object.external_type = 'gdrive';
      object.external_url = `https://docs.google.com/document/d/${id}/edit`;
      // Slack points url_private at the external document; here it is a sign-in page on this server, so an app
      // that tries to download it gets HTML (as it would from Google) and the test stays offline.
      object.url_private = `${this.origin}/external/${id}/${name}`;
      delete object.url_private_download;
    }
    this.files.set(id, { object, access, content: input.content, thumbs: input.thumbs ?? {} });
    if (access === 'tombstone') return { id, mode: 'tombstone' };
    return structuredClone(object);
  }

  /** The bytes behind a file (uploaded by the app or seeded), for assertions; undefined for streamed content. */
  content(id: string): Buffer | undefined {
    const content = this.files.get(id)?.content;
    return content === undefined || typeof content === 'function' ? undefined : Buffer.from(content);
  }

  /** files.getUploadURLExternal: reserves an id and an upload URL on this server. */
  reserveUpload(filename: string, length: number): { file_id: string; upload_url: string } {
    this.counter += 1;
    const fileId = `F0UPLD${String(this.counter).padStart(5, '0')}`;
    this.uploads.set(fileId, { filename, length });
    return { file_id: fileId, upload_url: `${this.origin}/upload/v1/${fileId}` };
  }

  /**
   * The upload POST. web-api 8.2 sends the bytes as multipart/form-data (one field), so the fake takes the
   * first file part, or the raw body for any other content type.
   */
  async receiveUpload(req: IncomingMessage, res: ServerResponse, fileId: string): Promise<void> {
    const upload = this.uploads.get(fileId);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!upload) return sendText(res, 404, 'upload not found');
    let bytes = Buffer.concat(chunks);
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('multipart/form-data')) {
      const form = await new Request('http://upload/', { method: 'POST', headers: { 'content-type': type }, body: bytes }).formData();
      for (const value of form.values()) {
        bytes = typeof value === 'string' ? Buffer.from(value) : Buffer.from(await value.arrayBuffer());
        break;
      }
    }
    upload.content = bytes;
    sendText(res, 200, `OK - ${bytes.length}`);
  }

  /** files.completeUploadExternal for one file: the stored file object, or the error code. */
  completeUpload(fileId: string, title: string | undefined, user: string): SlackFileObject | 'file_not_found' | 'file_upload_incomplete' {
    const upload = this.uploads.get(fileId);
    if (!upload) return 'file_not_found';
    if (!upload.content) return 'file_upload_incomplete';
    this.uploads.delete(fileId);
    const ext = /\.([a-z0-9]+)$/i.exec(upload.filename)?.[1]?.toLowerCase() ?? '';
    const mimetype = MIME_BY_EXTENSION[ext === 'txt' ? 'text' : ext === 'md' ? 'markdown' : ext] ?? 'application/octet-stream';
    const object = this.add({ id: fileId, name: upload.filename, mimetype, content: upload.content, user });
    if (title) {
      object.title = title;
      this.files.get(fileId)!.object.title = title;
    }
    return object;
  }

  /** files.info: the object, or the error Slack gives. */
  /** Someone deleted the file in Slack: info says file_deleted, downloads get the sign-in page. */
  remove(id: string): boolean {
    const entry = this.files.get(id);
    if (!entry) return false;
    entry.access = 'deleted';
    return true;
  }

  info(id: string): SlackFileObject | 'file_not_found' | 'file_deleted' {
    const entry = this.files.get(id);
    if (!entry) return 'file_not_found';
    // Slack says file_deleted for a deleted file but may only know "not found" for a tombstoned one; apps must
    // treat both as gone, so the fake uses both.
    if (entry.access === 'deleted') return 'file_deleted';
    if (entry.access === 'tombstone') return 'file_not_found';
    return structuredClone(entry.object);
  }

  /** GET/HEAD for /files/…, /files-tmb/…, /external/…, /signin. Returns false when the path is not a file path. */
  async serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    if (path.startsWith('/signin')) {
      sendText(res, 200, SIGN_IN_PAGE, 'text/html; charset=utf-8');
      return true;
    }
    const match = /^\/(files|files-tmb|external)\/([^/]+)(?:\/(.*))?$/.exec(path);
    if (!match) return false;
    const [, kind, id = '', rest = ''] = match;
    const authorized = req.headers.authorization === `Bearer ${this.botToken}`;
    const record = (status: number) => this.downloads.push({ path, authorized, status });
    const entry = this.files.get(id);

    if (kind === 'external') {
      record(200);
      sendText(res, 200, SIGN_IN_PAGE.replace('your workspace', 'Google Drive'), 'text/html; charset=utf-8');
      return true;
    }
    if (!entry || entry.access === 'deleted' || entry.access === 'tombstone' || entry.access === 'external') {
      record(404);
      sendText(res, 404, '<html><body>File not found</body></html>', 'text/html; charset=utf-8');
      return true;
    }
    if (!authorized) {
      // Slack sends an unauthenticated file request to its sign-in page.
      record(302);
      res.writeHead(302, { location: `/signin?redir=${encodeURIComponent(path)}` });
      res.end();
      return true;
    }
    if (entry.access === 'html_login') {
      record(200);
      sendText(res, 200, SIGN_IN_PAGE, 'text/html; charset=utf-8');
      return true;
    }

    let body: Buffer | Readable;
    let mimetype = entry.object.mimetype ?? 'application/octet-stream';
    if (kind === 'files-tmb') {
      const thumb = entry.thumbs[rest];
      if (!thumb) {
        record(404);
        sendText(res, 404, 'not found');
        return true;
      }
      body = thumb;
      mimetype = 'image/png';
    } else {
      body = typeof entry.content === 'function' ? entry.content() : Buffer.from(entry.content);
    }
    record(200);
    const headers: Record<string, string | number> = {
      'content-type': mimetype,
      'cache-control': 'private, no-transform',
    };
    if (rest.startsWith('download/')) headers['content-disposition'] = `attachment; filename="${entry.object.name}"`;
    if (Buffer.isBuffer(body)) headers['content-length'] = body.length;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') {
      if (!Buffer.isBuffer(body)) body.destroy();
      res.end();
      return true;
    }
    if (Buffer.isBuffer(body)) {
      res.end(body);
      return true;
    }
    // The client may stop reading (size cap) and close the socket: that is expected, not a fake failure.
    const stream = body;
    await pipeline(stream, res).catch(() => stream.destroy());
    return true;
  }

  reset(): void {
    this.downloads.length = 0;
  }
}
