import { describe, expect, it } from 'vitest';
import { formatSkillList } from '../../src/skills';

describe('formatSkillList', () => {
  it('lists each skill with its description and when to use it, sorted by name', () => {
    const text = formatSkillList([
      { name: 'slack', description: 'Formatting for Slack.' },
      { name: 'jira', description: 'Jira tickets.', whenToUse: 'Filing a bug.' },
    ]);
    expect(text).toBe(
      [
        '*2 skills* — each loaded only when a task needs it:',
        '• `jira` — Jira tickets. _When: Filing a bug._',
        '• `slack` — Formatting for Slack.',
      ].join('\n'),
    );
  });

  it('escapes the characters Slack reads as markup, so a description cannot ping or link', () => {
    const text = formatSkillList([{ name: 'x', description: 'Never <!channel> & co > others' }]);
    expect(text).toContain('Never &lt;!channel&gt; &amp; co &gt; others');
    expect(text.startsWith('*1 skill*')).toBe(true);
  });

  it('says how to add a skill when there are none', () => {
    expect(formatSkillList([])).toMatch(/^No skills are installed\. .*SKILL\.md/);
  });
});
