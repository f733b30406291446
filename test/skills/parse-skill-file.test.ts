import { describe, expect, it } from 'vitest';
import { MAX_DESCRIPTION_CHARS, parseSkillFile } from '../../src/skills/parse-skill-file';

const valid = `---
name: jira
description: Formatting Jira tickets.
when_to_use: Someone asks for a ticket.
---
# Jira

Templates: \`jira/templates/bug.md\` and [incidents](jira/templates/incident.md).
`;

describe('parseSkillFile', () => {
  it('reads name, description and when_to_use, and strips the front matter from the body', () => {
    const result = parseSkillFile(valid, 'jira');
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.skill.summary).toEqual({
      name: 'jira',
      description: 'Formatting Jira tickets.',
      whenToUse: 'Someone asks for a ticket.',
    });
    expect(result.skill.body.startsWith('# Jira')).toBe(true);
    expect(result.skill.body).not.toContain('description:');
  });

  it('finds further files named in backticks or as link targets', () => {
    const result = parseSkillFile(valid, 'jira');
    expect(result.ok && result.skill.references).toEqual(['jira/templates/bug.md', 'jira/templates/incident.md']);
  });

  it('joins a multi-line YAML description into one line for the prompt', () => {
    const text = '---\nname: slack\ndescription: >\n  Formatting\n  for Slack.\n---\nBody\n';
    const result = parseSkillFile(text, 'slack');
    expect(result.ok && result.skill.summary.description).toBe('Formatting for Slack.');
  });

  it('accepts a byte-order mark and Windows line endings', () => {
    const text = '\uFEFF---\r\nname: slack\r\ndescription: Slack.\r\n---\r\nBody\r\n';
    expect(parseSkillFile(text, 'slack').ok).toBe(true);
  });

  it('asks for a description in the words the issue gives', () => {
    const result = parseSkillFile('---\nname: jira\n---\nBody\n', 'jira');
    expect(result).toEqual({
      ok: false,
      problems: ['front matter has no `description` — add one line saying when to use the skill'],
      declaredName: 'jira',
    });
  });

  it('collects every problem of a file at once', () => {
    const result = parseSkillFile('---\nname: Jira Tickets\n---\n', 'jira');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(3);
    expect(result.problems[0]).toMatch(/name `Jira Tickets` is not valid/);
    expect(result.problems[1]).toMatch(/no `description`/);
    expect(result.problems[2]).toMatch(/nothing after the front matter/);
  });

  it('refuses a file without front matter, or with broken YAML', () => {
    const missing = parseSkillFile('# Just a body\n', 'jira');
    expect(!missing.ok && missing.problems[0]).toMatch(/has no front matter/);

    const broken = parseSkillFile('---\nname: [jira\ndescription: x\n---\nBody\n', 'jira');
    expect(!broken.ok && broken.problems[0]).toMatch(/^front matter is not valid YAML \(/);

    const list = parseSkillFile('---\n- jira\n---\nBody\n', 'jira');
    expect(!list.ok && list.problems[0]).toMatch(/must be `key: value` lines/);
  });

  it('requires the name to match the folder', () => {
    const result = parseSkillFile('---\nname: jira\ndescription: x\n---\nBody\n', 'jira-old');
    expect(!result.ok && result.problems).toEqual([
      'name `jira` does not match its folder `jira-old` — rename one so they agree',
    ]);
  });

  it('keeps descriptions short because they ride in every prompt', () => {
    const long = 'x'.repeat(MAX_DESCRIPTION_CHARS + 1);
    const result = parseSkillFile(`---\nname: jira\ndescription: ${long}\n---\nBody\n`, 'jira');
    expect(!result.ok && result.problems[0]).toMatch(/description is 501 characters/);
  });

  it('warns about unknown keys instead of failing, so a typo like when-to-use is noticed', () => {
    const result = parseSkillFile('---\nname: jira\ndescription: x\nwhen-to-use: y\n---\nBody\n', 'jira');
    expect(result.ok && result.warnings).toEqual([
      'front matter key `when-to-use` is not used (known keys: name, description, when_to_use)',
    ]);
  });
});
