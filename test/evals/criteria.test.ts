/** The evals' criteria read answers as people write them: page references in their usual forms, numbers with separators. */
import { describe, expect, it } from 'vitest';
import { checkExpectations, citedPages } from '../../evals/runner/criteria';
import { parseCase } from '../../evals/runner/case-file';
import type { AskResult } from '../../src/terminal/local-edge';

const result = (answer: string, extra: Partial<AskResult> = {}): AskResult => ({
  runId: 1,
  threadId: 1,
  status: 'done',
  answer,
  tokens: { input: 900, output: 100, total: 1000 },
  modelCalls: 2,
  iterations: 2,
  toolCalls: [{ name: 'search_file', arguments: { id: 'F2', query: 'x' }, durationMs: 3 }],
  skillsLoaded: [],
  durationMs: 10,
  ...extra,
});

describe('eval criteria', () => {
  it('finds the pages an answer cites, in the forms people write them', () => {
    expect([...citedPages('See report.pdf, p. 95, and pp. 3–5; also page 12, pages 20 and 22, slide 2, S. 92, Seite 7.')].sort((a, b) => a - b)).toEqual([
      2, 3, 4, 5, 7, 12, 20, 22, 92, 95,
    ]);
    expect([...citedPages("it's 3 o'clock, step 4, pp")]).toEqual([]);
  });

  it('passes what the answer states and names the criterion of what it does not', () => {
    const expect_ = parseCase('ask: q\nexpect:\n  facts: [["1,234", "1234"], Wellington]\n  calls: [search_file|ask_file]\n  no_calls: [load_file]\n  reads: [F1]\n  cites: [[95, 92]]\n  max_model_calls: 1\n', 'case.yaml').expect;
    const checked = checkExpectations(expect_, result('It has **1234** entries; the capital is *Wellington* (p. 92).'));
    expect(checked.filter((c) => !c.pass).map((c) => `${c.criterion}: ${c.detail}`)).toEqual([
      'reads: no tool opened F1 (calls: search_file(F2))',
      'max_model_calls: 2 model calls, at most 1 allowed',
    ]);
  });

  it('refuses a case whose question comes from someone not in it', () => {
    expect(() => parseCase('ask: { from: zoe, text: hi }\n', '/cases/x.yaml')).toThrow('/cases/x.yaml: ask.0.from: "zoe" is not one of people (ana) nor "threadwise"');
  });
});
