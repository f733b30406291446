import { SkillLoadError } from './skill-errors';
import { FolderSkillLibrary, type SkillLibrary } from './skill-library';
import { openSkillRoot } from './skill-root';
import { scanSkills } from './scan-skills';
import { watchSkillsFolder } from './watch-skills';
import { messageOf } from '../core/errors';

export { formatSkillList } from './format-skill-list';
export { SkillLoadError, SkillReadError } from './skill-errors';
export type { SkillLibrary } from './skill-library';
export type { SkillSummary } from './types';

export interface SkillLibraryOptions {
  /** Watch the folder and reload edited skills (listing included) without a restart. Reads are always current. */
  watch?: boolean;
  /** Problems that do not stop the app: an edit that broke a skill, a file left out. Default: console.warn. */
  onWarning?: (message: string) => void;
  /** How long the watcher waits for a burst of file events to settle. */
  debounceMs?: number;
}

/**
 * Loads and validates every skill under `dir`. Throws SkillLoadError listing every problem, one a line, when any
 * skill is malformed, nameless, misnamed or duplicated: start-up should stop rather than run without a skill.
 */
export async function loadSkillLibrary(dir: string, options: SkillLibraryOptions = {}): Promise<SkillLibrary> {
  const onWarning = options.onWarning ?? ((message: string) => console.warn(message));
  const root = await openSkillRoot(dir);
  const results = await scanSkills(root);
  const problems = [...results.values()].flatMap((result) => (result.status === 'invalid' ? result.problems : []));
  if (problems.length) throw new SkillLoadError(root.show(''), problems);

  const library = new FolderSkillLibrary(root, onWarning);
  for (const [folder, result] of results) library.accept(folder, result);
  if (options.watch) {
    const stop = watchSkillsFolder(root.dir, {
      debounceMs: options.debounceMs ?? 150,
      onChange: () => {
        library.refresh().catch((error: unknown) => onWarning(`skills: reloading failed (${messageOf(error)})`));
      },
      onError: onWarning,
    });
    library.watchWith(stop);
  }
  return library;
}
