import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A scratch folder for one test; `files` maps paths inside it to their content. Remove it with `cleanUp`. */
export async function makeTempDir(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'threadwise-skills-'));
  await writeFiles(dir, files);
  return dir;
}

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(dir, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

export async function cleanUp(...dirs: string[]): Promise<void> {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A SKILL.md as an operator would write it. */
export function skillMarkdown(skill: { name: string; description: string; body: string; whenToUse?: string }): string {
  const when = skill.whenToUse ? `when_to_use: ${skill.whenToUse}\n` : '';
  return `---\nname: ${skill.name}\ndescription: ${skill.description}\n${when}---\n${skill.body}\n`;
}

/** Two small, valid skills; jira names a nested template the way shipped skills do. */
export const SAMPLE_SKILLS: Record<string, string> = {
  'jira/SKILL.md': skillMarkdown({
    name: 'jira',
    description: 'Formatting Jira tickets.',
    whenToUse: 'Someone asks for a ticket.',
    body: '# Jira playbook\n\nUse `jira/templates/bug.md` for bugs.',
  }),
  'jira/templates/bug.md': '# Bug template\n\nSteps to reproduce…\n',
  'slack/SKILL.md': skillMarkdown({
    name: 'slack',
    description: 'Formatting for Slack.',
    body: '# Slack playbook\n\nNever use @channel.',
  }),
};
