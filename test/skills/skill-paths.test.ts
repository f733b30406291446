import { describe, expect, it } from 'vitest';
import { SkillReadError } from '../../src/skills/skill-errors';
import { isInside, parseSkillRequest } from '../../src/skills/skill-paths';

describe('parseSkillRequest', () => {
  it('splits a skill name from the path inside its folder', () => {
    expect(parseSkillRequest('jira')).toEqual({ skill: 'jira', rest: [] });
    expect(parseSkillRequest(' jira/templates/bug.md ')).toEqual({ skill: 'jira', rest: ['templates', 'bug.md'] });
    expect(parseSkillRequest('jira/./templates//bug.md')).toEqual({ skill: 'jira', rest: ['templates', 'bug.md'] });
  });

  it('treats SKILL.md as the skill itself', () => {
    expect(parseSkillRequest('jira/SKILL.md')).toEqual({ skill: 'jira', rest: [] });
  });

  it.each([
    ['../etc/passwd', '`..` leads outside'],
    ['jira/../../secrets.txt', '`..` leads outside'],
    ['/etc/passwd', 'absolute paths'],
    ['C:/Windows/win.ini', 'absolute paths'],
    ['~/.ssh/id_rsa', 'absolute paths'],
    ['jira\\..\\..\\x', 'forward slashes only'],
    ['jira/.env', 'hidden files'],
    ['jira/bug\0.md', 'NUL'],
    ['   ', 'empty'],
  ])('refuses %j before touching the disk', (request, reason) => {
    let caught: unknown;
    try {
      parseSkillRequest(request);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SkillReadError);
    expect((caught as SkillReadError).code).toBe('outside');
    expect((caught as SkillReadError).message).toContain(reason);
  });
});

describe('isInside', () => {
  it('accepts the root and paths below it, nothing else', () => {
    expect(isInside('/srv/skills', '/srv/skills')).toBe(true);
    expect(isInside('/srv/skills', '/srv/skills/jira/SKILL.md')).toBe(true);
    expect(isInside('/srv/skills', '/srv/skills-old/jira/SKILL.md')).toBe(false);
    expect(isInside('/srv/skills', '/srv/other')).toBe(false);
  });
});
