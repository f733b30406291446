import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSkillLibrary, type SkillLibrary } from '../../src/skills';

// The real skills/ folder the app ships, read as it will be in production.
const SHIPPED = fileURLToPath(new URL('../../skills', import.meta.url));

let library: SkillLibrary;
const warnings: string[] = [];

beforeAll(async () => {
  library = await loadSkillLibrary(SHIPPED, { onWarning: (message) => warnings.push(message) });
});
afterAll(() => library?.close());

async function body(name: string): Promise<string> {
  return (await library.read(name)).content;
}

describe('the shipped skills', () => {
  it('all validate, without a single warning', () => {
    expect(warnings).toEqual([]);
    expect(library.list().map((skill) => skill.name)).toEqual(['data', 'jira', 'large_files', 'notion', 'slack']);
  });

  it('each describe themselves for the prompt and say when to use them', () => {
    for (const skill of library.list()) {
      expect(skill.description.length, skill.name).toBeGreaterThan(60);
      expect(skill.whenToUse, skill.name).toBeTruthy();
    }
  });

  it.each(['data', 'jira', 'large_files', 'notion', 'slack'])('%s is a real playbook of 60–200 lines', async (name) => {
    const lines = (await body(name)).split('\n').length;
    expect(lines).toBeGreaterThanOrEqual(60);
    expect(lines).toBeLessThanOrEqual(200);
  });

  it('offer only further files that exist and have content', async () => {
    for (const skill of library.list()) {
      const { files = [] } = await library.read(skill.name);
      for (const file of files) expect((await library.read(file)).content.trim().length, file).toBeGreaterThan(200);
    }
  });

  it('large_files covers every file tool and the page citation form', async () => {
    const text = await body('large_files');
    for (const tool of ['load_file', 'peek_file', 'extract_file', 'search_file', 'ask_file']) expect(text).toContain(tool);
    expect(text).toContain('report.pdf, p. 37');
    expect((await library.read('large_files')).files).toContain('large_files/comparing-documents.md');
  });

  it('data walks through query_table, make_chart and attach_file', async () => {
    const text = await body('data');
    for (const tool of ['query_table', 'make_chart', 'attach_file', '{"mark": "table"}']) expect(text).toContain(tool);
  });

  it('jira ships bug, incident and task templates and explains wiki markup versus ADF', async () => {
    const { content, files } = await library.read('jira');
    expect(files).toEqual(expect.arrayContaining(['jira/templates/bug.md', 'jira/templates/incident.md', 'jira/templates/task.md']));
    expect(content).toMatch(/wiki markup/i);
    expect(content).toMatch(/ADF/);
    for (const field of ['Summary', 'Priority', 'Labels', 'Components', 'Acceptance criteria']) expect(content).toContain(field);
  });

  it('notion covers callouts, toggles, tables, mentions, to-dos, code and what does not survive paste', async () => {
    const text = (await body('notion')).toLowerCase();
    for (const topic of ['callout', 'toggle', 'table', 'mention', 'to-do', 'code', 'does not survive paste']) expect(text).toContain(topic);
  });

  it('slack gives the limits, the mention and link syntax, and forbids @here and @channel', async () => {
    const text = await body('slack');
    for (const fact of ['12,000', '3,000', '50 blocks', '<@U', '<#C', '<https://example.com/path|link text>']) expect(text).toContain(fact);
    expect(text).toMatch(/\*\*Never\*\* `@here`, `@channel`/);
  });
});
