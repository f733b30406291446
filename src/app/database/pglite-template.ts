/**
 * A new embedded database, copied rather than created. initdb inside PGlite takes 5–15 s of CPU on a small machine
 * (and ~850 MB of WebAssembly memory while it runs); the first start of a fresh DATA_DIR was a silent 13 s. So the
 * project ships a database made once and migrated (drizzle/pglite-template.tar.gz, 4–5 MB, made by
 * `npm run db:template`), and a fresh DATA_DIR gets a copy of its files: a second or so.
 *
 * The copy is used only by the PGlite it was made with (pglite-template.json names the version: another one may
 * not read its catalog), and migrations still run after it, so a template older than drizzle/ is still correct,
 * just slower; test/app/database/pglite-template.test.ts fails when it no longer matches drizzle/.
 */
import { existsSync, readFileSync, renameSync, rmSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { unpackTemplate } from './unpack-template.mjs';

const drizzleFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));
export const TEMPLATE_FILE = path.join(drizzleFolder, 'pglite-template.tar.gz');
export const TEMPLATE_MANIFEST = path.join(drizzleFolder, 'pglite-template.json');

export interface TemplateManifest {
  /** The @electric-sql/pglite version that made it. */
  pglite: string;
  /** drizzle/'s migrations applied in it: tag and sha256 of the SQL, as drizzle records them. */
  migrations: Array<{ tag: string; hash: string }>;
}

/** The installed PGlite's version (its package.json is not exported, so found beside its entry point). */
export function installedPgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
  }
  return 'unknown';
}

export function readTemplateManifest(): TemplateManifest | undefined {
  try {
    return JSON.parse(readFileSync(TEMPLATE_MANIFEST, 'utf8')) as TemplateManifest;
  } catch {
    return undefined;
  }
}

/** Whether this installation can start a database from the shipped template. */
export function templateUsable(): boolean {
  const manifest = readTemplateManifest();
  return manifest !== undefined && existsSync(TEMPLATE_FILE) && manifest.pglite === installedPgliteVersion();
}

/**
 * Fills the empty folder `dir` with the template's files: unpacked beside it (stagingFolderFor), then renamed into
 * place, so a start killed half-way leaves no half a database (the next start finds no PG_VERSION and begins again).
 * `unpacked`: the staging folder was filled already (early-pglite.ts, while the app loaded).
 */
export async function createFromTemplate(dir: string, unpacked?: Promise<void>): Promise<void> {
  const staging = stagingFolderFor(dir);
  if (unpacked) await unpacked;
  else await unpackTemplate(TEMPLATE_FILE, staging);
  try {
    rmdirSync(dir); // empty: made by the caller, holding nothing yet
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Where a new database's files are unpacked before they are renamed into `dir`. */
export function stagingFolderFor(dir: string): string {
  return `${dir}.creating`;
}

interface TarEntry {
  name: string;
  type: 'file' | 'directory';
  data: Buffer;
}

/** A ustar archive of `entries` (sorted, mtime 0, no owner): the same folder always gives the same bytes. */
export function writeTar(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const header = Buffer.alloc(512);
    const full = entry.type === 'directory' ? `${entry.name}/` : entry.name;
    let name = full;
    let prefix = '';
    if (Buffer.byteLength(full) > 100) {
      const cut = full.lastIndexOf('/', full.length - 2);
      prefix = full.slice(0, cut);
      name = full.slice(cut + 1);
      if (Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155) throw new Error(`name too long for ustar: ${full}`);
    }
    const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, '0') + '\0';
    header.write(name, 0, 100, 'utf8');
    header.write(octal(entry.type === 'directory' ? 0o700 : 0o600, 8), 100, 'ascii');
    header.write(octal(0, 8), 108, 'ascii');
    header.write(octal(0, 8), 116, 'ascii');
    header.write(octal(entry.type === 'directory' ? 0 : entry.data.length, 12), 124, 'ascii');
    header.write(octal(0, 12), 136, 'ascii');
    header.write('        ', 148, 'ascii');
    header.write(entry.type === 'directory' ? '5' : '0', 156, 'ascii');
    header.write('ustar\0', 257, 'ascii');
    header.write('00', 263, 'ascii');
    header.write(prefix, 345, 155, 'utf8');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(octal(sum, 7) + ' ', 148, 'ascii');
    blocks.push(header);
    if (entry.type === 'file') {
      blocks.push(entry.data);
      const padding = (512 - (entry.data.length % 512)) % 512;
      if (padding) blocks.push(Buffer.alloc(padding));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
