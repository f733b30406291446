/**
 * ThreadOutput for the terminal chat: charts and attached files are written into a folder and their paths are
 * returned (the tool's result names them, and the chat prints them). No blocks: every chart is a PNG there.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ThreadOutput } from '../tools/table-tools-context';

export function createFolderThreadOutput(folder: string): ThreadOutput {
  const save = async (name: string, bytes: Uint8Array) => {
    await mkdir(folder, { recursive: true });
    // Only the base name: a name can never place a file outside the folder.
    const target = path.join(folder, path.basename(name));
    await writeFile(target, bytes);
    return { location: target };
  };
  return {
    postImage: ({ name, png }) => save(name, png),
    attachFile: ({ name, bytes }) => save(name, bytes),
  };
}
