import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadSkillFolder, type SkillFolderResult } from './load-skill-folder';
import type { SkillRoot } from './skill-root';

/**
 * Loads every skill folder under the root: one result per folder, keyed by folder name, in name order. Loose
 * files at the top (a README) are not skills and are passed over.
 */
export async function scanSkills(root: SkillRoot): Promise<Map<string, SkillFolderResult>> {
  const results = new Map<string, SkillFolderResult>();
  for (const folder of await listSkillFolders(root)) {
    results.set(folder, await loadSkillFolder(root, folder));
  }
  markDuplicates(root, results);
  return results;
}

async function listSkillFolders(root: SkillRoot): Promise<string[]> {
  const entries = await readdir(root.dir, { withFileTypes: true });
  const folders: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) folders.push(entry.name);
    // A symlinked skill folder is kept so loadSkillFolder can refuse it by name if it leads outside.
    else if (entry.isSymbolicLink() && (await isFolder(path.join(root.dir, entry.name)))) folders.push(entry.name);
  }
  return folders.sort();
}

async function isFolder(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A name must match its folder, so two folders declaring one name means one of them was copied and not renamed.
 * Both are named in the problem, so the operator sees which file to change.
 */
function markDuplicates(root: SkillRoot, results: Map<string, SkillFolderResult>): void {
  const byName = new Map<string, string[]>();
  for (const [folder, result] of results) {
    const declared = result.status === 'ok' ? result.skill.summary.name : result.status === 'invalid' ? result.declaredName : undefined;
    if (!declared) continue;
    byName.set(declared, [...(byName.get(declared) ?? []), folder]);
  }
  for (const [name, folders] of byName) {
    if (folders.length < 2) continue;
    for (const folder of folders) {
      const others = folders.filter((other) => other !== folder).map((other) => root.show(`${other}/SKILL.md`));
      const problem = {
        file: root.show(`${folder}/SKILL.md`),
        message: `name \`${name}\` is also declared by ${others.join(', ')} — skill names must be unique`,
      };
      const result = results.get(folder);
      const problems = result?.status === 'invalid' ? result.problems : [];
      results.set(folder, { status: 'invalid', problems: [...problems, problem], declaredName: name });
    }
  }
}
