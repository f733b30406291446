import { watch, type FSWatcher } from 'node:fs';
import { messageOf } from '../core/errors';

export interface SkillWatchOptions {
  /** Editors write a file in several steps (truncate, write, rename); wait for them to settle. */
  debounceMs: number;
  onChange(): void;
  onError(message: string): void;
}

/**
 * Calls onChange once a burst of changes anywhere under the skills folder has settled. Returns a function that
 * stops watching. The watcher and its timer are unref'd: watching skills must never keep the process alive.
 */
export function watchSkillsFolder(dir: string, options: SkillWatchOptions): () => void {
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      options.onChange();
    }, options.debounceMs);
    timer.unref();
  };

  let watcher: FSWatcher;
  try {
    watcher = watch(dir, { recursive: true }, schedule);
  } catch (error) {
    // Without recursive support, changes to top-level folders are still seen; reads check files themselves.
    options.onError(`skills: watching ${dir} recursively is not supported here (${messageOf(error)}); watching its top level only`);
    watcher = watch(dir, schedule);
  }
  watcher.on('error', (error) => options.onError(`skills: watching ${dir} failed (${messageOf(error)}); reads still pick up edits`));
  watcher.unref();

  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };
}
