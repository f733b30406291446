/**
 * The evals' output: a table (case, result, why, tokens, time) and a total for people, one JSON document for the
 * next comparison, and that comparison (--baseline): which cases got better or worse, and how tokens and time moved.
 */
import type { CaseResult } from './run-case';

export interface EvalRun {
  /** Bump when the shape changes, so a comparison with an older file can say so. */
  version: 1;
  startedAt: string;
  model: string;
  /** Against the scripted model (the harness tested), or a real endpoint (the answers measured). */
  scripted: boolean;
  judged: boolean;
  totals: { cases: number; passed: number; failed: number; skipped: number; tokens: number; modelCalls: number; durationMs: number };
  cases: CaseResult[];
}

export function summarise(cases: CaseResult[], meta: Pick<EvalRun, 'startedAt' | 'model' | 'scripted' | 'judged'>): EvalRun {
  const ran = cases.filter((c) => c.result !== 'skip');
  return {
    version: 1,
    ...meta,
    totals: {
      cases: cases.length,
      passed: cases.filter((c) => c.result === 'pass').length,
      failed: cases.filter((c) => c.result === 'fail').length,
      skipped: cases.filter((c) => c.result === 'skip').length,
      tokens: ran.reduce((sum, c) => sum + c.tokens, 0),
      modelCalls: ran.reduce((sum, c) => sum + c.modelCalls, 0),
      durationMs: ran.reduce((sum, c) => sum + c.durationMs, 0),
    },
    cases,
  };
}

/** The table and the total, for a terminal of `width` columns. */
export function formatTable(run: EvalRun, width = 120): string {
  const rows = run.cases.map((c) => [
    c.name,
    c.result === 'pass' ? 'pass' : c.result === 'fail' ? 'FAIL' : 'skip',
    c.reasons[0] ? `${c.reasons[0]}${c.reasons.length > 1 ? ` (+${c.reasons.length - 1} more)` : ''}` : c.judge ? `judge (LLM): ${c.judge.reason}` : '',
    c.result === 'skip' ? '-' : formatTokens(c.tokens),
    c.result === 'skip' ? '-' : formatSeconds(c.durationMs),
  ]);
  const header = ['case', 'result', 'why', 'tokens', 'time'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  // The "why" column takes what the others leave.
  widths[2] = Math.max(20, Math.min(widths[2]!, width - (widths[0]! + widths[1]! + widths[3]! + widths[4]! + 8)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const clipped = cell.length > widths[i]! ? `${cell.slice(0, widths[i]! - 1)}…` : cell;
        return i >= 3 ? clipped.padStart(widths[i]!) : clipped.padEnd(widths[i]!);
      })
      .join('  ')
      .trimEnd();
  const t = run.totals;
  const total = `${t.passed} of ${t.cases - t.skipped} passed${t.failed ? `, ${t.failed} failed` : ''}${t.skipped ? `, ${t.skipped} skipped` : ''} · ${formatTokens(t.tokens)} tokens · ${t.modelCalls} model calls · ${formatSeconds(t.durationMs)}`;
  const failures = run.cases
    .filter((c) => c.result === 'fail')
    .map((c) => [`${c.name} (${c.file}):`, ...c.reasons.map((reason) => `  - ${reason}`)].join('\n'));
  const judged = run.cases.filter((c) => c.judge);
  const verdicts = judged.length
    ? ['Judge (LLM — an opinion, not a checked criterion):', ...judged.map((c) => `  ${c.name}: ${c.judge!.pass ? 'pass' : 'FAIL'} — ${c.judge!.reason}`)].join('\n')
    : '';
  return [
    `${run.scripted ? 'Scripted model (tests the harness, not the answers)' : `Model: ${run.model}`}${run.judged ? ' · with the LLM judge' : ''}`,
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    `Total: ${total}`,
    ...(failures.length ? ['', 'Failed:', ...failures] : []),
    ...(verdicts ? ['', verdicts] : []),
  ].join('\n');
}

export interface Comparison {
  better: string[];
  worse: string[];
  added: string[];
  removed: string[];
  text: string;
}

/** This run against an earlier one: results that changed, tokens and time per case and in total. */
export function compareWithBaseline(run: EvalRun, baseline: EvalRun, baselineName: string): Comparison {
  const before = new Map(baseline.cases.map((c) => [c.name, c]));
  const now = new Map(run.cases.map((c) => [c.name, c]));
  const better: string[] = [];
  const worse: string[] = [];
  const lines: string[] = [];
  for (const c of run.cases) {
    const old = before.get(c.name);
    if (!old || c.result === 'skip' || old.result === 'skip') continue;
    const moved: string[] = [];
    if (old.result !== c.result) {
      (c.result === 'pass' ? better : worse).push(c.name);
      moved.push(c.result === 'pass' ? `now passes (was: ${old.reasons[0] ?? 'failing'})` : `now FAILS: ${c.reasons[0] ?? ''}`);
    }
    const tokens = change(old.tokens, c.tokens);
    if (tokens) moved.push(`tokens ${formatTokens(old.tokens)} → ${formatTokens(c.tokens)} (${tokens})`);
    const time = change(old.durationMs, c.durationMs);
    if (time && Math.abs(c.durationMs - old.durationMs) >= 1000) moved.push(`time ${formatSeconds(old.durationMs)} → ${formatSeconds(c.durationMs)} (${time})`);
    if (moved.length) lines.push(`  ${c.result === 'pass' ? (old.result === 'pass' ? '=' : '+') : old.result === 'fail' ? '=' : '-'} ${c.name}: ${moved.join('; ')}`);
  }
  const added = run.cases.filter((c) => !before.has(c.name)).map((c) => c.name);
  const removed = baseline.cases.filter((c) => !now.has(c.name)).map((c) => c.name);
  const b = baseline.totals;
  const t = run.totals;
  const summary = [
    `Compared with ${baselineName} (${baseline.scripted ? 'scripted' : baseline.model}, ${baseline.startedAt}):`,
    `  passed ${b.passed} → ${t.passed}; better: ${better.length ? better.join(', ') : 'none'}; worse: ${worse.length ? worse.join(', ') : 'none'}`,
    `  tokens ${formatTokens(b.tokens)} → ${formatTokens(t.tokens)}${change(b.tokens, t.tokens) ? ` (${change(b.tokens, t.tokens)})` : ''}; time ${formatSeconds(b.durationMs)} → ${formatSeconds(t.durationMs)}`,
    ...(lines.length ? ['  per case (+ better, - worse, = same result):', ...lines.map((l) => `  ${l}`)] : ['  no case changed its result, tokens or time noticeably']),
    ...(added.length ? [`  new cases: ${added.join(', ')}`] : []),
    ...(removed.length ? [`  no longer run: ${removed.join(', ')}`] : []),
  ];
  return { better, worse, added, removed, text: summary.join('\n') };
}

/** "+12%" or "-30%", or nothing when the change is under 10 %. */
function change(before: number, after: number): string | undefined {
  if (before === after) return undefined;
  if (before === 0) return 'new';
  const percent = Math.round(((after - before) / before) * 100);
  return Math.abs(percent) < 10 ? undefined : `${percent > 0 ? '+' : ''}${percent}%`;
}

function formatTokens(tokens: number): string {
  return tokens.toLocaleString('en-US');
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
