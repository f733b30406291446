import path from 'node:path';
import { listSkillFiles } from './list-skill-files';
import { parseSkillFile } from './parse-skill-file';
import { readTextFile } from './read-text-file';
import { SkillReadError, type SkillProblem } from './skill-errors';
import { resolveInsideRoot } from './skill-paths';
import type { SkillRoot } from './skill-root';
import type { LoadedSkill } from './types';

export type SkillFolderResult =
  | { status: 'ok'; skill: LoadedSkill; files: string[]; warnings: string[] }
  /** declaredName: the front matter's name even when invalid, so duplicates can be reported. */
  | { status: 'invalid'; problems: SkillProblem[]; declaredName?: string }
  /** The folder is gone (deleted, or never there). Not a problem in itself. */
  | { status: 'missing' };

/**
 * Loads and validates one `skills/<folder>/`: SKILL.md parses, its name matches the folder, and every further file
 * it names is there and servable. Used at start (problems stop start-up), on reload and on every read.
 */
export async function loadSkillFolder(root: SkillRoot, folder: string): Promise<SkillFolderResult> {
  const dir = path.join(root.dir, folder);
  const skillFileShown = root.show(path.join(folder, 'SKILL.md'));
  const invalid = (message: string, file = skillFileShown): SkillFolderResult => ({
    status: 'invalid',
    problems: [{ file, message }],
  });

  try {
    if (!(await resolveInsideRoot(root.realDir, dir, root.show(folder)))) return { status: 'missing' };
  } catch (error) {
    if (!(error instanceof SkillReadError)) throw error;
    return invalid('is a symlink leading outside the skills folder — move the skill inside it', root.show(folder));
  }

  let text: string;
  try {
    const real = await resolveInsideRoot(root.realDir, path.join(dir, 'SKILL.md'), skillFileShown);
    if (!real) {
      return invalid(
        'is missing — every skill folder needs a SKILL.md with front matter (`name`, `description`); add one or remove the folder',
      );
    }
    text = await readTextFile(real, skillFileShown);
  } catch (error) {
    if (error instanceof SkillReadError) return invalid(error.message);
    throw error;
  }

  const parsed = parseSkillFile(text, folder);
  if (!parsed.ok) {
    return {
      status: 'invalid',
      problems: parsed.problems.map((message) => ({ file: skillFileShown, message })),
      declaredName: parsed.declaredName,
    };
  }

  const { files, skipped } = await listSkillFiles(root.realDir, dir, folder);
  const available = new Set(files);
  const problems: SkillProblem[] = parsed.skill.references
    .filter((reference) => !available.has(reference))
    .map((reference) => ({
      file: skillFileShown,
      message: `names \`${reference}\`, which is not a text file in the skill's folder — add it or fix the path`,
    }));
  if (problems.length) return { status: 'invalid', problems, declaredName: folder };

  const warnings = [
    ...parsed.warnings.map((warning) => `${skillFileShown}: ${warning}`),
    ...skipped.map(({ file, reason }) => `${root.show(file)}: left out of the skill — ${reason}`),
  ];
  const skill: LoadedSkill = { summary: parsed.skill.summary, folder, dir, body: parsed.skill.body };
  return { status: 'ok', skill, files, warnings };
}
