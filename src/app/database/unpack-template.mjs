/**
 * Unpacks the shipped database template (drizzle/pglite-template.tar.gz, made by make-pglite-template.ts) into a
 * staging folder. Plain JavaScript so that it also runs on a thread of its own while the app's modules load
 * (unpack-template-thread.mjs, started by early-pglite.ts): 40 MB of files is over a second of CPU.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

/**
 * Fills `staging` (emptied first) with the template's files; on failure nothing is left of it. `stopRequested`, asked
 * before each file, ends it early the same way (a process exiting while the template is unpacked on a thread: only
 * the writer can remove the folder without racing its own writes).
 */
export async function unpackTemplate(templateFile, staging, stopRequested = () => false) {
  const tar = await promisify(gunzip)(readFileSync(templateFile));
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  try {
    for (const entry of readTar(tar)) {
      if (stopRequested()) throw new Error('stopped: the process is exiting');
      const target = path.join(staging, entry.name);
      if (!target.startsWith(staging + path.sep)) throw new Error(`the template has an entry outside its folder: ${entry.name}`);
      if (entry.type === 'directory') mkdirSync(target, { recursive: true, mode: 0o700 });
      else {
        mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
        writeFileSync(target, entry.data, { mode: 0o600 });
      }
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Plain ustar, as writeTar makes it: regular files and folders, names up to 255 bytes (prefix + name). */
function* readTar(tar) {
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) return;
    const field = (start, length) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(0, 100);
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const flag = String.fromCharCode(header[156]);
    offset += 512;
    const data = tar.subarray(offset, offset + size);
    offset += Math.ceil(size / 512) * 512;
    const clean = name.replace(/^\.?\/+/, '').replace(/\/+$/, '');
    if (!clean) continue;
    if (flag === '5') yield { name: clean, type: 'directory', data };
    else if (flag === '0' || flag === '\0') yield { name: clean, type: 'file', data };
    else throw new Error(`the template has an entry of a kind it should not (${JSON.stringify(flag)}): ${clean}`);
  }
}
