import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { SkillReadError } from './skill-errors';
import { readTextFile } from './read-text-file';
import { resolveInsideRoot, toPosix } from './skill-paths';

/** Deeper or bigger than this is not a playbook folder; stop rather than walk someone's node_modules. */
const MAX_DEPTH = 4;
const MAX_FILES = 200;

export interface SkillFiles {
  /** Loadable further files, from the skills folder: "jira/templates/bug.md". Sorted, SKILL.md excluded. */
  files: string[];
  /** Files left out, and why, for a warning at start. */
  skipped: { file: string; reason: string }[];
}

/**
 * The further files of one skill that load_skill would serve: text, inside the skills folder once symlinks are
 * followed, not hidden. Read on every call so the list is always current.
 */
export async function listSkillFiles(realRoot: string, skillDir: string, folder: string): Promise<SkillFiles> {
  const result: SkillFiles = { files: [], skipped: [] };
  await walk(realRoot, skillDir, folder, 0, result);
  result.files.sort();
  return result;
}

async function walk(realRoot: string, dir: string, shownDir: string, depth: number, result: SkillFiles): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (depth === 0 && entry.name === 'SKILL.md') continue;
    const full = path.join(dir, entry.name);
    const shown = `${shownDir}/${entry.name}`;
    if (result.files.length >= MAX_FILES) {
      result.skipped.push({ file: shown, reason: `more than ${MAX_FILES} files in one skill; the rest are not served` });
      return;
    }
    try {
      const real = await resolveInsideRoot(realRoot, full, shown);
      if (!real) continue;
      if (entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(real)))) {
        if (depth + 1 >= MAX_DEPTH) {
          result.skipped.push({ file: shown, reason: `nested deeper than ${MAX_DEPTH} folders; not served` });
          continue;
        }
        await walk(realRoot, full, shown, depth + 1, result);
        continue;
      }
      await readTextFile(real, shown);
      result.files.push(toPosix(shown));
    } catch (error) {
      if (!(error instanceof SkillReadError)) throw error;
      result.skipped.push({ file: shown, reason: error.message });
    }
  }
}

async function isDirectory(file: string): Promise<boolean> {
  return (await stat(file)).isDirectory();
}
