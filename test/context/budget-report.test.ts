import { describe, expect, test } from 'vitest';
import { buildBudgetReport, buildModelMessages, countRequestTokens } from '../../src/context';
import { contextInput, file, textOf, userTurn } from './fixtures';

describe('buildBudgetReport', () => {
  const f1 = file('F1', 'handbook.pdf', { pageCount: 80 });
  const budget = { contextWindow: 32_000, reserveForAnswer: 4_000 };
  const built = buildModelMessages(contextInput([userTurn('Ana', 'What does the handbook say about leave?', [f1])], { files: [f1], budget }));

  test('tells the model tokens used and left, with the refreshed file list', () => {
    const virtual = file('F1.txt', 'handbook.txt', { fileType: 'text', sizeBytes: 210_000, sourceId: 'F1' });
    const run = [
      ...built.messages,
      { role: 'assistant' as const, content: null, toolCalls: [{ id: 'c1', name: 'extract_file', arguments: '{"id":"F1"}' }] },
      { role: 'tool' as const, toolCallId: 'c1', content: 'Extracted F1 into F1.txt (210,000 characters, 80 pages).' },
    ];
    const report = buildBudgetReport({
      messages: run,
      model: 'gpt-4o',
      budget,
      files: [f1, virtual],
      textLengths: new Map([['F1.txt', 210_000]]),
    });
    const used = countRequestTokens(run, 'gpt-4o');
    expect(report.usedTokens).toBe(used);
    expect(report.leftTokens).toBe(28_000 - used);
    const text = textOf(report.message.content);
    expect(report.message.role).toBe('user');
    expect(text).toContain(
      `Context used: ${used.toLocaleString('en-US')} of 28,000 tokens; ${(28_000 - used).toLocaleString('en-US')} left`,
    );
    expect(text).toContain('F1.txt | "handbook.txt" | text | 205 KB | - | ~53k tok | no');
    expect(text).toContain('Use load_file only for a file whose text fits well within what is left');
  });

  test('with little room left it advises against load_file', () => {
    const used = countRequestTokens(built.messages, 'gpt-4o');
    const tight = { contextWindow: used + 1_000 + 50, reserveForAnswer: 1_000 };
    const report = buildBudgetReport({ messages: built.messages, model: 'gpt-4o', budget: tight, files: [f1] });
    expect(report.leftTokens).toBe(50);
    expect(textOf(report.message.content)).toContain('Little room is left: answer from what you have');
  });
});
