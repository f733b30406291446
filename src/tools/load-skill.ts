import { z } from 'zod';
import type { SkillDocument } from '../skills/types';
import type { Tool } from './tool';

const parameters = z.object({
  name: z
    .string()
    .min(1)
    .describe(
      'A skill name from the skills list ("jira"), or a further file inside a skill\'s folder as offered when the skill was loaded ("jira/templates/bug.md").',
    ),
});

/**
 * Progressive disclosure: the prompt lists only skill names and descriptions; this tool brings in a playbook when a
 * task needs it, and the playbook's further files only when the playbook points at them.
 */
export const loadSkillTool: Tool<{ name: string }> = {
  name: 'load_skill',
  description: [
    'Load a skill: a playbook on how to do a kind of task well (formatting for Jira, Notion or Slack, handling large files…).',
    'Load one when its description in the skills list matches the task, before doing the task; it is cheap, a few thousand characters.',
    'With a skill name ("jira") it returns the playbook inside <skill name="…">…</skill>, followed by the further files of that skill you can load.',
    'With a path inside a skill\'s folder ("jira/templates/bug.md") it returns that file inside <skill_file path="…">…</skill_file>.',
    'Only skills and their files can be loaded; thread files use load_file.',
  ].join(' '),
  parameters,

  describeProgress({ name }) {
    const request = name.trim();
    return request.includes('/') ? `reading ${request}…` : `loading the ${request} skill…`;
  },

  async execute({ name }, context) {
    context.signal.throwIfAborted();
    const document: SkillDocument = await context.skills.read(name);
    const isBody = document.path === `${document.name}/SKILL.md`;
    context.recordActivity(isBody ? `skill ${document.name}` : `skill ${document.path}`);
    return isBody ? frameSkill(document) : frameFile(document);
  },
};

function frameSkill(document: SkillDocument): string {
  const files = furtherFiles(document);
  const offer = files.length
    ? `Further files you can load with load_skill: ${files.join(', ')}`
    : 'This skill has no further files.';
  return `<skill name="${document.name}">\n${document.content.trim()}\n</skill>\n${offer}`;
}

function frameFile(document: SkillDocument): string {
  return `<skill_file skill="${document.name}" path="${document.path}">\n${document.content.trim()}\n</skill_file>`;
}

/**
 * SkillReader promises name, path and content; the skills library also sends the folder's files. Another reader
 * (a test double, a future store) may not, and then there is simply nothing to offer.
 */
function furtherFiles(document: SkillDocument): string[] {
  return Array.isArray(document.files) ? document.files.filter((file) => typeof file === 'string') : [];
}
