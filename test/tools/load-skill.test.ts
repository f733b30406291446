import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadSkillLibrary, type SkillLibrary } from '../../src/skills';
import { loadSkillTool } from '../../src/tools/load-skill';
import type { SkillReader, ToolContext } from '../../src/tools/tool';
import type { ThreadFileAccess } from '../../src/files/thread-file-access';
import { cleanUp, makeTempDir, SAMPLE_SKILLS } from '../skills/skill-fixtures';

const SHIPPED = fileURLToPath(new URL('../../skills', import.meta.url));

/** load_skill never touches thread files; any use of them is a bug this stub makes loud. */
const noFiles = new Proxy({} as ThreadFileAccess, {
  get(_target, property) {
    throw new Error(`load_skill must not use files (it called files.${String(property)})`);
  },
});

function makeContext(skills: SkillReader, signal = new AbortController().signal) {
  const activity: string[] = [];
  const context: ToolContext = {
    files: noFiles,
    skills,
    signal,
    tokensLeft: () => 100_000,
    showImage: () => {
      throw new Error('load_skill shows no images');
    },
    recordActivity: (entry) => activity.push(entry),
  };
  return { context, activity };
}

let dir: string;
let library: SkillLibrary;

beforeEach(async () => {
  dir = await makeTempDir(SAMPLE_SKILLS);
  library = await loadSkillLibrary(dir, { onWarning: () => {} });
});
afterEach(async () => {
  library.close();
  await cleanUp(dir);
});

describe('load_skill', () => {
  it('returns the skill body framed with its name, then the further files it can load, and records the skill', async () => {
    const { context, activity } = makeContext(library);
    const result = await loadSkillTool.execute({ name: 'jira' }, context);
    expect(result).toBe(
      [
        '<skill name="jira">',
        '# Jira playbook',
        '',
        'Use `jira/templates/bug.md` for bugs.',
        '</skill>',
        'Further files you can load with load_skill: jira/templates/bug.md',
      ].join('\n'),
    );
    expect(result).not.toContain('description:');
    expect(activity).toEqual(['skill jira']);
  });

  it('says so when a skill has no further files', async () => {
    const { context } = makeContext(library);
    expect(await loadSkillTool.execute({ name: 'slack' }, context)).toMatch(/<\/skill>\nThis skill has no further files\.$/);
  });

  it('returns a nested file by path', async () => {
    const { context, activity } = makeContext(library);
    const result = await loadSkillTool.execute({ name: 'jira/templates/bug.md' }, context);
    expect(result).toBe('<skill_file skill="jira" path="jira/templates/bug.md">\n# Bug template\n\nSteps to reproduce…\n</skill_file>');
    expect(activity).toEqual(['skill jira/templates/bug.md']);
  });

  it('throws an error naming the skills that exist for an unknown skill, and records nothing', async () => {
    const { context, activity } = makeContext(library);
    await expect(loadSkillTool.execute({ name: 'confluence' }, context)).rejects.toThrow(
      'There is no skill "confluence". The skills are: jira, slack.',
    );
    expect(activity).toEqual([]);
  });

  it('refuses ../, absolute paths and symlinks leading out', async () => {
    const outside = await makeTempDir({ 'secret.md': 'the database password' });
    await symlink(path.join(outside, 'secret.md'), path.join(dir, 'jira/leak.md'));
    const { context, activity } = makeContext(library);
    try {
      for (const name of ['../../etc/passwd', '/etc/passwd', 'jira/leak.md']) {
        await expect(loadSkillTool.execute({ name }, context)).rejects.toThrow(/^Refused /);
      }
      expect(activity).toEqual([]);
    } finally {
      await cleanUp(outside);
    }
  });

  it('does nothing once the run is cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('run cancelled'));
    const { context, activity } = makeContext(library, controller.signal);
    await expect(loadSkillTool.execute({ name: 'jira' }, context)).rejects.toThrow('run cancelled');
    expect(activity).toEqual([]);
  });

  it('works with a reader that does not list further files', async () => {
    const reader: SkillReader = { read: async (name) => ({ name, path: `${name}/SKILL.md`, content: '# Body' }) };
    const { context } = makeContext(reader);
    expect(await loadSkillTool.execute({ name: 'x' }, context)).toBe(
      '<skill name="x">\n# Body\n</skill>\nThis skill has no further files.',
    );
  });

  it('describes its progress for the thread', () => {
    const { context } = makeContext(library);
    expect(loadSkillTool.describeProgress({ name: 'jira' }, context)).toBe('loading the jira skill…');
    expect(loadSkillTool.describeProgress({ name: 'jira/templates/bug.md' }, context)).toBe('reading jira/templates/bug.md…');
  });

  it('declares a name parameter the model can read as JSON Schema', () => {
    expect(loadSkillTool.name).toBe('load_skill');
    expect(z.toJSONSchema(loadSkillTool.parameters)).toMatchObject({
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', description: expect.stringContaining('jira/templates/bug.md') } },
    });
    expect(loadSkillTool.parameters.safeParse({}).success).toBe(false);
    expect(loadSkillTool.parameters.safeParse({ name: '' }).success).toBe(false);
  });

  it('loads every shipped skill and every file it offers', async () => {
    const shipped = await loadSkillLibrary(SHIPPED, { onWarning: () => {} });
    try {
      const { context, activity } = makeContext(shipped);
      for (const skill of shipped.list()) {
        const result = await loadSkillTool.execute({ name: skill.name }, context);
        expect(result.startsWith(`<skill name="${skill.name}">\n`)).toBe(true);
        const offered = /Further files you can load with load_skill: (.+)$/.exec(result)?.[1]?.split(', ') ?? [];
        for (const file of offered) {
          expect(await loadSkillTool.execute({ name: file }, context)).toMatch(new RegExp(`^<skill_file skill="${skill.name}" path="${file}">`));
        }
      }
      expect(activity).toEqual(expect.arrayContaining(['skill jira', 'skill jira/templates/bug.md', 'skill large_files']));
    } finally {
      shipped.close();
    }
  });
});
