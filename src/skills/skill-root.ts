import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { SkillLoadError } from './skill-errors';

/** The skills folder, resolved once: the real path is what every symlink check compares against. */
export interface SkillRoot {
  /** Absolute path as configured. */
  dir: string;
  /** The same with symlinks resolved. */
  realDir: string;
  /** A path inside the folder as an operator would type it: "skills/jira/SKILL.md". */
  show(relative: string): string;
}

export async function openSkillRoot(dir: string): Promise<SkillRoot> {
  const absolute = path.resolve(dir);
  const shownRoot = showPath(absolute);
  let realDir: string;
  try {
    realDir = await realpath(absolute);
    if (!(await stat(realDir)).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new SkillLoadError(shownRoot, [
      { file: shownRoot, message: 'the skills folder does not exist or is not a folder — create it or set SKILLS_DIR' },
    ]);
  }
  return {
    dir: absolute,
    realDir,
    show: (relative) => (relative ? `${shownRoot}/${relative.split(path.sep).join('/')}` : shownRoot),
  };
}

/** Relative to the working directory when the folder is under it ("skills"), absolute otherwise. */
function showPath(absolute: string): string {
  const relative = path.relative(process.cwd(), absolute);
  if (!relative) return '.';
  if (relative.startsWith('..') || path.isAbsolute(relative)) return absolute;
  return relative.split(path.sep).join('/');
}
