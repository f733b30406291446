import { describe, expect, it } from 'vitest';
import { parseQuery, selectSnippet } from '../../src/search';

describe('selectSnippet', () => {
  const passage =
    'The committee met twice. Budget planning was postponed. ' +
    'In the third quarter, revenue rose by 12 percent while costs stayed flat. '.padEnd(200, ' ') +
    'Hiring resumes next year in Berlin and Lisbon.';

  it('cuts the window with the most matches and marks the matched words', () => {
    const snippet = selectSnippet(passage, parseQuery('Q3 revenue quarter costs'), 120);

    expect(snippet.text).toContain('«revenue»');
    expect(snippet.text).toContain('«quarter»');
    expect(snippet.text).toMatch(/^…/);
    expect(passage.slice(snippet.start, snippet.end)).toContain('revenue rose');
  });

  it('returns a short passage whole', () => {
    expect(selectSnippet('Hiring resumes in Berlin.', parseQuery('berlin'), 300)).toEqual({
      text: 'Hiring resumes in «Berlin».',
      start: 0,
      end: 25,
    });
  });

  it('marks inflected forms and CJK matches', () => {
    expect(selectSnippet('Metrische Räume sind hausdorffsch.', parseQuery('Raum Hausdorff'), 300).text).toBe(
      'Metrische «Räume» sind «hausdorffsch».',
    );
    expect(selectSnippet('本报告期营业收入减少', parseQuery('营业收入'), 300).text).toBe('本报告期«营业收入»减少');
  });
});
