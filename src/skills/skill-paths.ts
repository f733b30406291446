import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { SkillReadError } from './skill-errors';
import { codeOf } from '../core/errors';

/** What load_skill was asked for, split into the skill's name and the path inside its folder. */
export interface SkillRequest {
  skill: string;
  /** Path segments inside the skill's folder; empty for the skill's own body. */
  rest: string[];
}

/**
 * Refuses, before touching the disk, anything that could name a file outside the skills folder: absolute paths,
 * `..`, backslashes (a Windows separator on some hosts, an escape trick on others), NUL and hidden files.
 */
export function parseSkillRequest(nameOrPath: string): SkillRequest {
  const request = nameOrPath.trim();
  const refuse = (why: string) =>
    new SkillReadError(
      'outside',
      `Refused "${nameOrPath}": ${why}. Ask for a skill by name ("jira") or for a file inside a skill's folder ("jira/templates/bug.md").`,
    );

  if (!request) throw refuse('it is empty');
  if (request.includes('\0')) throw refuse('it contains a NUL character');
  if (request.includes('\\')) throw refuse('paths use forward slashes only');
  if (path.posix.isAbsolute(request) || /^[a-zA-Z]:/.test(request) || request.startsWith('~')) {
    throw refuse('absolute paths are outside the skills folder');
  }
  const segments = request.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw refuse('`..` leads outside the skills folder');
  if (segments.some((segment) => segment.startsWith('.'))) throw refuse('hidden files are not served');

  const [skill, ...rest] = segments;
  if (!skill) throw refuse('it names no skill');
  // "jira/SKILL.md" is the body itself; serve it the same way as "jira".
  if (rest.length === 1 && rest[0] === 'SKILL.md') return { skill, rest: [] };
  return { skill, rest };
}

/** True when `candidate` is `root` or lies inside it; both must already be real (symlink-free) paths. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The real path of a file the request names, checked to stay inside the skills folder after every symlink is
 * followed. Returns undefined when nothing is there.
 */
export async function resolveInsideRoot(realRoot: string, candidate: string, shown: string): Promise<string | undefined> {
  try {
    await lstat(candidate);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  let real: string;
  try {
    real = await realpath(candidate);
  } catch (error) {
    // A dangling symlink: it points somewhere that does not exist, which we treat as not being there.
    if (isMissing(error)) return undefined;
    throw error;
  }
  if (!isInside(realRoot, real)) {
    throw new SkillReadError('outside', `Refused "${shown}": it is a link leading outside the skills folder.`);
  }
  return real;
}

function isMissing(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Paths as the model and the operator see them: relative, forward slashes. */
export function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}
