import path from 'node:path';
import { listSkillFiles } from './list-skill-files';
import { loadSkillFolder, type SkillFolderResult } from './load-skill-folder';
import { SKILL_NAME_PATTERN } from './parse-skill-file';
import { readTextFile } from './read-text-file';
import { formatSkillProblem, SkillReadError } from './skill-errors';
import { parseSkillRequest, resolveInsideRoot } from './skill-paths';
import type { SkillRoot } from './skill-root';
import { scanSkills } from './scan-skills';
import type { LoadedSkill, SkillDocument, SkillSummary } from './types';

export interface SkillLibrary {
  /** Names and descriptions for the prompt, sorted by name. Never the bodies. */
  list(): SkillSummary[];
  read(nameOrPath: string): Promise<SkillDocument>;
  /** Re-reads every skill now; the watcher calls this, and callers may too. */
  refresh(): Promise<void>;
  close(): void;
}

/**
 * The skills as they stand, kept current: every read goes to the disk, and a skill whose edit broke it keeps
 * serving its last good version (with a warning) so a typo in SKILL.md never takes a skill away mid-conversation.
 */
export class FolderSkillLibrary implements SkillLibrary {
  private readonly skills = new Map<string, LoadedSkill>();
  /** Warnings already given per folder, so a broken skill read a hundred times warns once. */
  private readonly warned = new Map<string, Set<string>>();
  private refreshing: Promise<void> = Promise.resolve();
  private stopWatching: (() => void) | undefined;

  constructor(
    private readonly root: SkillRoot,
    private readonly onWarning: (message: string) => void,
  ) {}

  list(): SkillSummary[] {
    return [...this.skills.values()]
      .map((skill) => ({ ...skill.summary }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async read(nameOrPath: string): Promise<SkillDocument> {
    const request = parseSkillRequest(nameOrPath);
    const folder = this.findFolder(request.skill);
    const result = await loadSkillFolder(this.root, folder);
    this.accept(folder, result);
    const skill = this.skills.get(folder);
    if (!skill) throw this.unknownSkill(request.skill);

    const files = result.status === 'ok' ? result.files : await this.listFiles(skill);
    if (request.rest.length === 0) {
      return { name: folder, path: `${folder}/SKILL.md`, content: skill.body, files };
    }

    const shown = [folder, ...request.rest].join('/');
    const real = await resolveInsideRoot(this.root.realDir, path.join(skill.dir, ...request.rest), shown);
    const inside = files.filter((file) => file.startsWith(`${shown}/`));
    if (inside.length) {
      throw new SkillReadError('folder', `"${shown}" is a folder. Files in it you can load: ${inside.join(', ')}.`);
    }
    if (!real) {
      const offer = files.length
        ? `Files in the ${folder} skill: ${files.join(', ')}.`
        : `The ${folder} skill has no further files.`;
      throw new SkillReadError('not_found', `There is no file "${shown}". ${offer}`);
    }
    return { name: folder, path: shown, content: await readTextFile(real, shown) };
  }

  refresh(): Promise<void> {
    // One scan at a time, in order: a burst of watcher events must not interleave two scans' results.
    const next = this.refreshing.catch(() => undefined).then(() => this.scanNow());
    this.refreshing = next;
    return next;
  }

  watchWith(stop: () => void): void {
    this.stopWatching = stop;
  }

  close(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
  }

  /** Records a folder's fresh result: new good versions replace old ones, broken ones never do. */
  accept(folder: string, result: SkillFolderResult): void {
    const previous = this.skills.get(folder);
    if (result.status === 'ok') {
      this.skills.set(folder, result.skill);
      // Only warnings that are new since the last look; the set is replaced so a fixed problem can warn again later.
      const seen = this.warned.get(folder);
      for (const warning of result.warnings) if (!seen?.has(warning)) this.onWarning(warning);
      this.warned.set(folder, new Set(result.warnings));
    } else if (result.status === 'invalid') {
      const consequence = previous
        ? `still serving the last good version of the ${folder} skill`
        : `the ${folder} skill is not loaded`;
      for (const problem of result.problems) this.warnOnce(folder, `${formatSkillProblem(problem)} (${consequence})`);
    } else if (previous) {
      this.skills.delete(folder);
      this.warned.delete(folder);
      this.onWarning(`${this.root.show(folder)}: folder is gone; the ${folder} skill is no longer offered`);
    }
  }

  private async scanNow(): Promise<void> {
    const results = await scanSkills(this.root);
    for (const [folder, result] of results) this.accept(folder, result);
    for (const folder of [...this.skills.keys()]) {
      if (!results.has(folder)) this.accept(folder, { status: 'missing' });
    }
  }

  /** Models capitalise names ("Jira"); folder names are lowercase by rule, so lowercasing is safe. */
  private findFolder(requested: string): string {
    if (this.skills.has(requested)) return requested;
    const lower = requested.toLowerCase();
    if (SKILL_NAME_PATTERN.test(lower)) return lower;
    throw this.unknownSkill(requested);
  }

  private async listFiles(skill: LoadedSkill): Promise<string[]> {
    return (await listSkillFiles(this.root.realDir, skill.dir, skill.folder)).files;
  }

  private unknownSkill(requested: string): SkillReadError {
    const names = this.list().map((skill) => skill.name);
    const offer = names.length ? `The skills are: ${names.join(', ')}.` : 'No skills are installed.';
    return new SkillReadError('unknown_skill', `There is no skill "${requested}". ${offer}`);
  }

  private warnOnce(folder: string, message: string): void {
    const seen = this.warned.get(folder) ?? new Set<string>();
    this.warned.set(folder, seen);
    if (seen.has(message)) return;
    seen.add(message);
    this.onWarning(message);
  }
}
