import { describe, expect, test } from 'vitest';
import { countTokens, fitToolResult, peekFileHint } from '../../src/context';

describe('fitToolResult', () => {
  const page = (n: number) => `Page ${n}. ${'The committee reviewed the budget and approved the plan. '.repeat(12)}\n`;
  const document = Array.from({ length: 200 }, (_, i) => page(i + 1)).join('');

  test('a result that fits comes back unchanged', () => {
    expect(fitToolResult('short result', 100)).toBe('short result');
    expect(fitToolResult(page(1), countTokens(page(1), 'gpt-4o'))).toBe(page(1));
  });

  test('an oversized result is cut to the limit with a note saying how to get the rest', () => {
    const fitted = fitToolResult(document, 2_000, peekFileHint('F1'));
    expect(countTokens(fitted, 'gpt-4o')).toBeLessThanOrEqual(2_000);
    // Pages end in a newline and the cut snaps to one, so the note follows the shown text directly.
    const shown = fitted.slice(0, fitted.lastIndexOf('[cut: '));
    expect(document.startsWith(shown)).toBe(true);
    const rest = document.length - shown.length;
    const stop = Math.min(document.length, shown.length * 2);
    expect(fitted.endsWith(`[cut: ${rest.toLocaleString('en-US')} more characters — use peek_file(F1, ${shown.length}, ${stop}) for the rest]`)).toBe(true);
  });

  test('the cut falls on a line boundary when one is near, else on a word', () => {
    const log = Array.from({ length: 2_000 }, (_, i) => `2026-05-12 10:${String(i % 60).padStart(2, '0')} request ${i} ok`).join('\n');
    const fitted = fitToolResult(log, 1_000, 'ask for less');
    expect(fitted).toMatch(/ ok\n\[cut: [\d,]+ more characters — ask for less\]$/);
    const prose = 'word '.repeat(10_000);
    expect(fitToolResult(prose, 1_000)).toMatch(/word \n\[cut: /);
  });

  test('a fixed hint, or none at all', () => {
    expect(fitToolResult('word '.repeat(5_000), 50, 'use search_file(F2, "budget") instead')).toMatch(
      /\[cut: [\d,]+ more characters — use search_file\(F2, "budget"\) instead\]$/,
    );
    expect(fitToolResult('word '.repeat(5_000), 50)).toMatch(/\[cut: [\d,]+ more characters not shown\]$/);
  });

  test('multi-byte text is cut without a broken character', () => {
    const fitted = fitToolResult('数据分析报告😀'.repeat(2_000), 300);
    expect(fitted).not.toContain('\uFFFD');
    expect(countTokens(fitted, 'gpt-4o')).toBeLessThanOrEqual(300);
  });

  test('counts with the tokenizer of the model it is given', () => {
    const fitted = fitToolResult('Всё хорошо, спасибо. '.repeat(1_000), 500, undefined, 'gpt-4');
    expect(countTokens(fitted, 'gpt-4')).toBeLessThanOrEqual(500);
  });

  test('a limit that is not a positive number is a caller error', () => {
    expect(() => fitToolResult('x', 0)).toThrow(/maxTokens must be positive, got 0/);
  });
});
