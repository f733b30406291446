import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSkillLibrary, SkillLoadError, SkillReadError, type SkillLibrary } from '../../src/skills';
import { cleanUp, makeTempDir, SAMPLE_SKILLS, skillMarkdown, writeFiles } from './skill-fixtures';

const dirs: string[] = [];
const libraries: SkillLibrary[] = [];

async function skillsDir(files: Record<string, string>): Promise<string> {
  const dir = await makeTempDir(files);
  dirs.push(dir);
  return dir;
}

async function open(dir: string, options: Parameters<typeof loadSkillLibrary>[1] = {}): Promise<SkillLibrary> {
  const library = await loadSkillLibrary(dir, { onWarning: () => {}, ...options });
  libraries.push(library);
  return library;
}

async function loadError(dir: string): Promise<SkillLoadError> {
  const error = await loadSkillLibrary(dir, { onWarning: () => {} }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof SkillLoadError)) throw new Error(`expected a SkillLoadError, got ${String(error)}`);
  return error;
}

async function readError(library: SkillLibrary, request: string): Promise<SkillReadError> {
  const error = await library.read(request).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof SkillReadError)) throw new Error(`expected a SkillReadError for ${request}, got ${String(error)}`);
  return error;
}

afterEach(async () => {
  for (const library of libraries.splice(0)) library.close();
  await cleanUp(...dirs.splice(0));
});

describe('loadSkillLibrary: listing and reading', () => {
  it('lists names and descriptions only, never the bodies', async () => {
    const library = await open(await skillsDir(SAMPLE_SKILLS));
    expect(library.list()).toEqual([
      { name: 'jira', description: 'Formatting Jira tickets.', whenToUse: 'Someone asks for a ticket.' },
      { name: 'slack', description: 'Formatting for Slack.' },
    ]);
    expect(JSON.stringify(library.list())).not.toContain('playbook');
  });

  it('returns a skill body without its front matter, with the further files it may load', async () => {
    const library = await open(await skillsDir(SAMPLE_SKILLS));
    const jira = await library.read('jira');
    expect(jira).toEqual({
      name: 'jira',
      path: 'jira/SKILL.md',
      content: '# Jira playbook\n\nUse `jira/templates/bug.md` for bugs.',
      files: ['jira/templates/bug.md'],
    });
  });

  it('returns a nested file by its path inside the skill folder', async () => {
    const library = await open(await skillsDir(SAMPLE_SKILLS));
    const bug = await library.read('jira/templates/bug.md');
    expect(bug).toEqual({ name: 'jira', path: 'jira/templates/bug.md', content: '# Bug template\n\nSteps to reproduce…\n' });
  });

  it('forgives a capitalised skill name', async () => {
    const library = await open(await skillsDir(SAMPLE_SKILLS));
    expect((await library.read('Jira')).name).toBe('jira');
  });

  it('names the skills that exist when asked for one that does not', async () => {
    const library = await open(await skillsDir(SAMPLE_SKILLS));
    const error = await readError(library, 'confluence');
    expect(error.code).toBe('unknown_skill');
    expect(error.message).toBe('There is no skill "confluence". The skills are: jira, slack.');
  });

  it('offers the files that exist when a nested path is wrong, and the files inside when a folder is named', async () => {
    const library = await open(await skillsDir(SAMPLE_SKILLS));
    const missing = await readError(library, 'jira/templates/story.md');
    expect(missing.code).toBe('not_found');
    expect(missing.message).toContain('Files in the jira skill: jira/templates/bug.md.');

    const folder = await readError(library, 'jira/templates');
    expect(folder.code).toBe('folder');
    expect(folder.message).toContain('jira/templates/bug.md');
  });

  it('starts with no skills from an empty folder', async () => {
    const library = await open(await skillsDir({ 'README.md': '# not a skill\n' }));
    expect(library.list()).toEqual([]);
  });
});

describe('loadSkillLibrary: refusing what lies outside the skills folder', () => {
  it('refuses ../ and absolute paths, even ones that exist', async () => {
    const dir = await skillsDir(SAMPLE_SKILLS);
    await writeFile(path.join(path.dirname(dir), `${path.basename(dir)}-secret.txt`), 'secret');
    dirs.push(path.join(path.dirname(dir), `${path.basename(dir)}-secret.txt`));
    const library = await open(dir);

    for (const request of [`jira/../../${path.basename(dir)}-secret.txt`, '../package.json', path.join(dir, 'jira/SKILL.md')]) {
      const error = await readError(library, request);
      expect(error.code).toBe('outside');
      expect(error.message).toMatch(/^Refused /);
    }
  });

  it('refuses a symlink inside a skill that leads out of the skills folder, and does not offer it', async () => {
    const outside = await skillsDir({ 'secret.md': 'the database password' });
    const dir = await skillsDir(SAMPLE_SKILLS);
    await symlink(path.join(outside, 'secret.md'), path.join(dir, 'jira/leak.md'));
    const warnings: string[] = [];
    const library = await open(dir, { onWarning: (message) => warnings.push(message) });

    const error = await readError(library, 'jira/leak.md');
    expect(error.code).toBe('outside');
    expect(error.message).toContain('link leading outside the skills folder');
    expect((await library.read('jira')).files).toEqual(['jira/templates/bug.md']);
    expect(warnings.join('\n')).toMatch(/jira\/leak\.md: left out of the skill/);
  });

  it('serves a symlink that stays inside the skills folder', async () => {
    const dir = await skillsDir(SAMPLE_SKILLS);
    await symlink(path.join(dir, 'jira/templates/bug.md'), path.join(dir, 'slack/bug-format.md'));
    const library = await open(dir);
    expect((await library.read('slack/bug-format.md')).content).toContain('# Bug template');
  });

  it('refuses binary files', async () => {
    const dir = await skillsDir(SAMPLE_SKILLS);
    await writeFile(path.join(dir, 'jira/logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    const library = await open(dir);
    const error = await readError(library, 'jira/logo.png');
    expect(error.code).toBe('not_text');
    expect((await library.read('jira')).files).not.toContain('jira/logo.png');
  });
});

describe('loadSkillLibrary: start-up validation', () => {
  it('stops on malformed front matter, naming the file and the fix', async () => {
    const dir = await skillsDir({
      ...SAMPLE_SKILLS,
      'notion/SKILL.md': '---\nname: notion\n---\n# Notion\n',
    });
    const error = await loadError(dir);
    const shown = `${dir}/notion/SKILL.md`;
    expect(error.problems).toEqual([
      { file: shown, message: 'front matter has no `description` — add one line saying when to use the skill' },
    ]);
    expect(error.message.split('\n')).toContain(
      `${shown}: front matter has no \`description\` — add one line saying when to use the skill`,
    );
  });

  it('lists every problem in every skill, one a line', async () => {
    const dir = await skillsDir({
      'jira/SKILL.md': '# no front matter\n',
      'notion/SKILL.md': '---\nname: [notion\n---\nBody\n',
      'slack/README.md': 'SKILL.md forgotten',
      'large_files/SKILL.md': skillMarkdown({ name: 'large_files', description: 'x', body: 'See `large_files/gone.md`.' }),
    });
    const error = await loadError(dir);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe(`Skills in ${dir} could not be loaded (4 problems):`);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/jira\/SKILL\.md: has no front matter/),
      expect.stringMatching(/large_files\/SKILL\.md: names `large_files\/gone\.md`, which is not a text file/),
      expect.stringMatching(/notion\/SKILL\.md: front matter is not valid YAML/),
      expect.stringMatching(/slack\/SKILL\.md: is missing — every skill folder needs a SKILL\.md/),
    ]);
  });

  it('stops on a nameless skill and on a name that does not match its folder', async () => {
    const nameless = await loadError(await skillsDir({ 'jira/SKILL.md': '---\ndescription: Jira.\n---\nBody\n' }));
    expect(nameless.message).toContain('jira/SKILL.md: front matter has no `name` — add `name: jira`');

    const misnamed = await loadError(
      await skillsDir({ 'Jira/SKILL.md': skillMarkdown({ name: 'Jira', description: 'Jira.', body: 'Body' }) }),
    );
    expect(misnamed.message).toContain('Jira/SKILL.md: name `Jira` is not valid');
  });

  it('stops on two folders declaring the same name, naming both files', async () => {
    const dir = await skillsDir({
      ...SAMPLE_SKILLS,
      'jira-copy/SKILL.md': skillMarkdown({ name: 'jira', description: 'Old Jira notes.', body: 'Body' }),
    });
    const error = await loadError(dir);
    expect(error.problems).toContainEqual({
      file: `${dir}/jira/SKILL.md`,
      message: `name \`jira\` is also declared by ${dir}/jira-copy/SKILL.md — skill names must be unique`,
    });
    expect(error.problems).toContainEqual({
      file: `${dir}/jira-copy/SKILL.md`,
      message: `name \`jira\` is also declared by ${dir}/jira/SKILL.md — skill names must be unique`,
    });
  });

  it('stops on a skill folder that is a symlink leading outside', async () => {
    const outside = await skillsDir(SAMPLE_SKILLS);
    const dir = await skillsDir({});
    await symlink(path.join(outside, 'slack'), path.join(dir, 'slack'));
    const error = await loadError(dir);
    expect(error.problems).toEqual([
      { file: `${dir}/slack`, message: 'is a symlink leading outside the skills folder — move the skill inside it' },
    ]);
  });

  it('stops when the skills folder itself is missing', async () => {
    const dir = path.join(await skillsDir({}), 'nope');
    const error = await loadError(dir);
    expect(error.message).toContain('the skills folder does not exist or is not a folder — create it or set SKILLS_DIR');
  });
});

describe('loadSkillLibrary: edits without a restart', () => {
  it('serves the current content of an edited skill on the next read', async () => {
    const dir = await skillsDir(SAMPLE_SKILLS);
    const library = await open(dir);
    expect((await library.read('slack')).content).toContain('Never use @channel.');

    await writeFiles(dir, {
      'slack/SKILL.md': skillMarkdown({ name: 'slack', description: 'Slack, revised.', body: '# Slack v2' }),
      'jira/templates/bug.md': '# Bug template v2\n',
    });
    expect((await library.read('slack')).content).toBe('# Slack v2');
    expect(library.list().find((skill) => skill.name === 'slack')?.description).toBe('Slack, revised.');
    expect((await library.read('jira/templates/bug.md')).content).toBe('# Bug template v2\n');
  });

  it('keeps serving the last good version of a skill whose edit broke it, and warns once', async () => {
    const dir = await skillsDir(SAMPLE_SKILLS);
    const warnings: string[] = [];
    const library = await open(dir, { onWarning: (message) => warnings.push(message) });

    await writeFiles(dir, { 'slack/SKILL.md': '---\nname: slack\n---\n# half-edited\n' });
    expect((await library.read('slack')).content).toBe('# Slack playbook\n\nNever use @channel.');
    expect((await library.read('slack')).content).toBe('# Slack playbook\n\nNever use @channel.');
    expect(warnings).toEqual([
      `${dir}/slack/SKILL.md: front matter has no \`description\` — add one line saying when to use the skill (still serving the last good version of the slack skill)`,
    ]);

    await writeFiles(dir, { 'slack/SKILL.md': skillMarkdown({ name: 'slack', description: 'Fixed.', body: '# Fixed' }) });
    expect((await library.read('slack')).content).toBe('# Fixed');
  });

  it('picks up a skill added after start, and drops one whose folder is removed', async () => {
    const dir = await skillsDir(SAMPLE_SKILLS);
    const warnings: string[] = [];
    const library = await open(dir, { onWarning: (message) => warnings.push(message) });

    await writeFiles(dir, { 'notion/SKILL.md': skillMarkdown({ name: 'notion', description: 'Notion.', body: '# Notion' }) });
    await rm(path.join(dir, 'slack'), { recursive: true });
    await library.refresh();

    expect(library.list().map((skill) => skill.name)).toEqual(['jira', 'notion']);
    expect(warnings).toEqual([`${dir}/slack: folder is gone; the slack skill is no longer offered`]);
    expect((await readError(library, 'slack')).code).toBe('unknown_skill');
  });

  it('updates the listing by itself when watching', async () => {
    const dir = await skillsDir(SAMPLE_SKILLS);
    const library = await open(dir, { watch: true, debounceMs: 20 });

    await mkdir(path.join(dir, 'notion'));
    await writeFile(path.join(dir, 'notion/SKILL.md'), skillMarkdown({ name: 'notion', description: 'Notion.', body: 'x' }));
    await writeFiles(dir, { 'jira/SKILL.md': skillMarkdown({ name: 'jira', description: 'Jira, revised.', body: 'x' }) });

    await vi.waitFor(
      () => {
        expect(library.list()).toEqual([
          { name: 'jira', description: 'Jira, revised.' },
          { name: 'notion', description: 'Notion.' },
          { name: 'slack', description: 'Formatting for Slack.' },
        ]);
      },
      { timeout: 10_000, interval: 50 },
    );
  });
});
