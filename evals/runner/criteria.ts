/**
 * What a good answer must do (a case's `expect`), checked against the run as recorded. Each failed criterion says,
 * in one line that starts with the criterion's name, what was expected and what happened.
 */
import type { AskResult } from '../../src/terminal/local-edge';
import type { Expectations } from './case-file';

export interface CriterionResult {
  /** The `expect` key it comes from ("facts", "calls", …), or "judge". */
  criterion: string;
  pass: boolean;
  /** For a failure: what was wanted and what happened. */
  detail?: string;
}

export function checkExpectations(expect: Expectations, result: AskResult): CriterionResult[] {
  const results: CriterionResult[] = [];
  const check = (criterion: string, pass: boolean, detail: () => string) => results.push(pass ? { criterion, pass } : { criterion, pass, detail: detail() });
  const called = result.toolCalls.map((call) => call.name);
  const calledText = called.length ? called.join(', ') : 'no tools';
  const answer = normalise(result.answer);

  check('status', result.status === expect.status, () => `the run ended ${result.status}${result.error ? ` (${result.error})` : ''}, expected ${expect.status}`);
  for (const wanted of expect.calls) {
    const options = wanted.split('|').map((name) => name.trim());
    check('calls', options.some((name) => called.includes(name)), () => `${options.join(' or ')} was not called (called: ${calledText})`);
  }
  for (const unwanted of expect.no_calls) {
    check('no_calls', !called.includes(unwanted), () => `${unwanted} was called (${called.filter((name) => name === unwanted).length}×), and must not be`);
  }
  for (const fileId of expect.reads) {
    const opened = result.toolCalls.some((call) => fileIdsOf(call.arguments).some((id) => id.toLowerCase().startsWith(fileId.toLowerCase())));
    check('reads', opened, () => `no tool opened ${fileId} (calls: ${describeCalls(result)})`);
  }
  for (const skill of expect.skills) {
    check('skills', result.skillsLoaded.includes(skill), () => `the ${skill} skill was not loaded (loaded: ${result.skillsLoaded.join(', ') || 'none'})`);
  }
  for (const phrase of expect.contains) {
    check('contains', answer.includes(normalise(phrase)), () => `the answer does not contain "${phrase}"`);
  }
  for (const fact of expect.facts) {
    const phrasings = Array.isArray(fact) ? fact : [fact];
    check('facts', phrasings.some((phrasing) => answer.includes(normalise(phrasing))), () => `the answer does not state ${phrasings.map((p) => `"${p}"`).join(' or ')}`);
  }
  for (const phrase of expect.not_contains) {
    check('not_contains', !answer.includes(normalise(phrase)), () => `the answer contains "${phrase}", and must not`);
  }
  if (expect.cites.length) {
    const cited = citedPages(result.answer);
    for (const page of expect.cites) {
      const pages = Array.isArray(page) ? page : [page];
      check('cites', pages.some((p) => cited.has(p)), () =>
        `the answer does not cite ${pages.map((p) => `p. ${p}`).join(' or ')} (it cites ${cited.size ? [...cited].sort((a, b) => a - b).map((p) => `p. ${p}`).join(', ') : 'no page'})`,
      );
    }
  }
  if (expect.max_model_calls !== undefined) {
    check('max_model_calls', result.modelCalls <= expect.max_model_calls, () => `${result.modelCalls} model calls, at most ${expect.max_model_calls} allowed`);
  }
  const maxTokens = expect.max_tokens;
  if (maxTokens !== undefined) {
    check('max_tokens', result.tokens.total <= maxTokens, () => `${result.tokens.total.toLocaleString('en-US')} tokens, at most ${maxTokens.toLocaleString('en-US')} allowed`);
  }
  return results;
}

/**
 * Pages and slides an answer cites: "p. 12", "pp. 3–5", "page 7", "pages 2 and 4", "slide 3", "S. 92", "Seite 9".
 * A range counts every page in it (up to 50).
 */
export function citedPages(answer: string): Set<number> {
  const pages = new Set<number>();
  const reference = /\b(?:(?:pp?|pgs?|pages?|slides?|seiten?)\.?|S\.)\s*(\d+(?:\s*(?:[-–—]|to|bis)\s*\d+)?(?:\s*(?:,|&|and|und)\s*\d+(?:\s*(?:[-–—]|to|bis)\s*\d+)?)*)/gi;
  for (const match of answer.matchAll(reference)) {
    for (const part of match[1]!.split(/\s*(?:,|&|and|und)\s*/i)) {
      const [from, to] = part.split(/\s*(?:[-–—]|to|bis)\s*/i).map(Number);
      if (from === undefined || !Number.isFinite(from)) continue;
      const end = to !== undefined && Number.isFinite(to) && to >= from && to - from <= 50 ? to : from;
      for (let page = from; page <= end; page++) pages.add(page);
    }
  }
  return pages;
}

/** Case, spacing, markdown emphasis, typographic quotes and thousands separators aside: "1,234" states 1234. */
function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/(\d)[,\u202f\u00a0'](?=\d{3}\b)/g, '$1')
    .replace(/[*_`]/g, '')
    .replace(/\s+/g, ' ');
}

function fileIdsOf(args: unknown): string[] {
  if (!args || typeof args !== 'object') return [];
  const { id, ids } = args as { id?: unknown; ids?: unknown };
  return [...(typeof id === 'string' ? [id] : []), ...(Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [])];
}

function describeCalls(result: AskResult): string {
  if (!result.toolCalls.length) return 'none';
  return result.toolCalls.map((call) => `${call.name}(${fileIdsOf(call.arguments).join(', ')})`).join(', ');
}
