import { describe, expect, test } from 'vitest';
import type { ChatMessage } from '../../src/core/chat';
import { buildBudgetReport, countRequestTokens, trimRunMessages } from '../../src/context';
import { findOrphans } from '../../src/context/run-steps';

/** One agent-loop step: the model calls tools, the loop appends one result per call. */
function step(n: number, results: Array<[tool: string, args: string, result: string]>): ChatMessage[] {
  return [
    { role: 'assistant', content: null, toolCalls: results.map(([name, args], i) => ({ id: `call_${n}_${i}`, name, arguments: args })) },
    ...results.map(([, , content], i): ChatMessage => ({ role: 'tool', toolCallId: `call_${n}_${i}`, content })),
  ];
}

const bigText = (label: string) => `${label}: ${'revenue rose in every region except the north. '.repeat(400)}`;

describe('trimRunMessages', () => {
  const run: ChatMessage[] = [
    ...step(1, [['peek_file', '{"id":"F1","start":0,"stop":20000}', bigText('F1 slice 1')]]),
    ...step(2, [
      ['search_file', '{"id":"F2","query":"revenue"}', bigText('F2 hits')],
      ['load_skill', '{"name":"large_files"}', 'Use extract_file first.'],
    ]),
    ...step(3, [['peek_file', '{"id":"F1","start":20000,"stop":40000}', bigText('F1 slice 2')]]),
  ];
  const model = 'gpt-4o';
  const size = countRequestTokens(run, model);

  test('leaves a run that fits alone', () => {
    const trimmed = trimRunMessages(run, { maxTokens: size, model });
    expect(trimmed.messages).toEqual(run);
  });

  test('replaces the oldest results first with a stub that names the call to repeat', () => {
    const trimmed = trimRunMessages(run, { maxTokens: size - 3_000, model });
    expect(trimmed.tokens).toBeLessThanOrEqual(size - 3_000);
    expect(trimmed.messages[1]).toEqual({
      role: 'tool',
      toolCallId: 'call_1_0',
      content: `[earlier result of peek_file({"id":"F1","start":0,"stop":20000}) removed to fit the context window (${bigText('F1 slice 1').length.toLocaleString('en-US')} characters); call it again if you still need it]`,
    });
    // The newest step, which the model is about to use, is untouched.
    expect(trimmed.messages.slice(-2)).toEqual(run.slice(-2));
    expect(findOrphans(trimmed.messages)).toEqual([]);
  });

  test('when stubs are not enough, the newest results are cut with a note', () => {
    const trimmed = trimRunMessages(run, { maxTokens: 1_500, model });
    expect(trimmed.tokens).toBeLessThanOrEqual(1_500);
    expect(trimmed.cutResults).toBe(1);
    const last = trimmed.messages.at(-1)!;
    expect(last.role === 'tool' && last.content).toMatch(/\[cut: [\d,]+ more characters — repeat the call with a narrower range, or use search_file\]$/);
    expect(findOrphans(trimmed.messages)).toEqual([]);
  });

  test('as a last resort whole steps go, each call with all its results, never orphaned', () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      step(i, [
        ['search_file', `{"id":"F1","query":"q${i}"}`, `hit ${i}`],
        ['peek_file', `{"id":"F1","start":${i},"stop":${i + 10}}`, `slice ${i}`],
      ]),
    ).flat();
    const trimmed = trimRunMessages(many, { maxTokens: 400, model });
    expect(trimmed.droppedUnits).toBeGreaterThan(0);
    expect(trimmed.tokens).toBeLessThanOrEqual(400);
    expect(findOrphans(trimmed.messages)).toEqual([]);
    expect(trimmed.messages.slice(-3)).toEqual(many.slice(-3));
  });

  test('stale budget reports go before any result is touched; the newest stays', () => {
    const budget = { contextWindow: 128_000, reserveForAnswer: 8_000 };
    const report = (used: ChatMessage[]) => buildBudgetReport({ messages: used, model, budget, files: [] }).message;
    const withReports = [...run.slice(0, 2), report(run.slice(0, 2)), ...run.slice(2, 5), report(run.slice(0, 5)), ...run.slice(5)];
    const oneReport = countRequestTokens(withReports, model) - countRequestTokens(run, model);
    const trimmed = trimRunMessages(withReports, { maxTokens: countRequestTokens(withReports, model) - oneReport / 2, model });
    expect(trimmed.messages).toEqual(withReports.filter((_, i) => i !== 2));
    expect(trimmed.stubbedResults).toBe(0);
  });
});
