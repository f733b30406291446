import { ThreadwiseError, type ThreadwiseErrorOptions } from '../core/errors';

/** One thing wrong with one file, in words an operator can act on. */
export interface SkillProblem {
  /** As the operator would type it: "skills/jira/SKILL.md". */
  file: string;
  message: string;
}

export function formatSkillProblem(problem: SkillProblem): string {
  return `${problem.file}: ${problem.message}`;
}

/**
 * Start-up stops on this: a broken skill would otherwise surface only when the model asks for it, mid-answer.
 * The message lists every problem, one a line, so one restart is enough to fix them all.
 */
export class SkillLoadError extends ThreadwiseError<'skills_invalid'> {
  override readonly name = 'SkillLoadError';
  constructor(
    readonly dir: string,
    readonly problems: SkillProblem[],
  ) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super('skills_invalid', `Skills in ${dir} could not be loaded (${count}):\n${problems.map(formatSkillProblem).join('\n')}`, {
      context: { dir, files: problems.map((problem) => problem.file) },
    });
  }
}

export type SkillReadErrorCode =
  | 'unknown_skill' // no skill by that name
  | 'not_found' // the skill exists, the file in it does not
  | 'outside' // "../", absolute paths, hidden files, symlinks leading out of the skills folder
  | 'not_text' // binary or not UTF-8
  | 'too_large' // over the per-file cap
  | 'folder'; // a folder was named where a file was expected

/** A load_skill request that cannot be served. The message is written for the model to act on. */
export class SkillReadError extends ThreadwiseError<SkillReadErrorCode> {
  override readonly name = 'SkillReadError';
  constructor(code: SkillReadErrorCode, message: string, options?: ThreadwiseErrorOptions) {
    super(code, message, options);
  }
}
