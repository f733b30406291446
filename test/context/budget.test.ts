import { describe, expect, test } from 'vitest';
import { buildModelMessages, countRequestTokens } from '../../src/context';
import { botTurn, contextInput, file, textOf, userTurn } from './fixtures';
import { makeSyntheticThread } from './synthetic-thread';

/** A long thread: 200 exchanges about numbered items, so each answer is easy to recognise. */
function longThread(exchanges: number) {
  const turns = [];
  for (let i = 1; i <= exchanges; i += 1) {
    turns.push(userTurn(i % 2 ? 'Ana' : 'Bo', `Item ${i}: what is the status of ticket OPS-${1000 + i}? ${'Context. '.repeat(20)}`));
    turns.push(botTurn(`OPS-${1000 + i} is waiting on review; the owner is team ${i % 7}.`, `read F1 p. ${i}`));
  }
  return turns;
}

describe('a thread longer than the budget', () => {
  const budget = { contextWindow: 16_000, reserveForAnswer: 4_000 };
  const turns = [
    ...longThread(200),
    userTurn('Ana', 'Compare the first two tickets in the list you just gave me'),
    botTurn('1. OPS-1199 is blocked on QA.\n2. OPS-1200 is waiting on a deploy window.'),
    userTurn('Ana', 'and the second one?'),
  ];
  const built = buildModelMessages(contextInput(turns, { budget }));

  test('still fits: the request stays within the window minus the answer reserve', () => {
    expect(built.report.totalTokens).toBeLessThanOrEqual(12_000);
    expect(built.report.totalTokens).toBe(countRequestTokens(built.messages, 'gpt-4o'));
  });

  test('drops whole oldest turns and says how many', () => {
    const dropped = built.report.droppedTurns;
    expect(dropped).toBeGreaterThan(0);
    expect(built.messages[1]).toEqual({
      role: 'user',
      content: `[Note from the system: ${dropped} earlier messages are left out here to fit the context window.]`,
    });
    // The first kept turn is exactly turn `dropped`, whole.
    const firstKept = buildModelMessages(contextInput(turns.slice(dropped), { budget: { contextWindow: 1e6, reserveForAnswer: 0 } }));
    expect(built.messages[2]).toEqual(firstKept.messages[1]);
    expect(built.messages.length).toBe(2 + (turns.length - dropped));
  });

  test('keeps the newest turns whole, so a follow-up still resolves', () => {
    const last = built.messages.slice(-3).map((m) => textOf(m.content));
    expect(last[0]).toBe('Ana: Compare the first two tickets in the list you just gave me');
    expect(last[1]).toBe('1. OPS-1199 is blocked on QA.\n2. OPS-1200 is waiting on a deploy window.');
    expect(last[2]).toMatch(/\n\nAna: and the second one\?$/);
  });

  test('the cut moves in steps of ten turns, so the kept prefix survives the next message', () => {
    expect(built.report.droppedTurns % 10).toBe(0);
    const next = buildModelMessages(contextInput([...turns, botTurn('OPS-1200.'), userTurn('Bo', 'thanks')], { budget }));
    expect(next.report.droppedTurns).toBe(built.report.droppedTurns);
    expect(next.messages.slice(0, built.messages.length - 1)).toEqual(built.messages.slice(0, -1));
  });

  test('a cached summary stands where the dropped turns were', () => {
    const summary = { text: 'Ana and Bo went through tickets OPS-1001 to OPS-1150; most wait on review.', coversTurns: 300 };
    const withSummary = buildModelMessages(contextInput(turns, { budget, summary }));
    expect(withSummary.report.droppedTurns).toBeGreaterThanOrEqual(300);
    expect(textOf(withSummary.messages[1]!.content)).toBe(
      `[Note from the system: ${withSummary.report.droppedTurns} earlier messages are left out here to fit the context window. A summary of the first 300 of them, made earlier:]\n<summary>\n${summary.text}\n</summary>`,
    );
    expect(withSummary.report.totalTokens).toBeLessThanOrEqual(12_000);
  });

  test('a thread that fits is never cut, and a summary is then not used', () => {
    const small = buildModelMessages(contextInput(longThread(3).concat(userTurn('Ana', 'ok?')), { summary: { text: 'x', coversTurns: 2 } }));
    expect(small.report.droppedTurns).toBe(0);
    expect(small.messages.some((m) => textOf(m.content).includes('<summary>'))).toBe(false);
  });

  test('a current message bigger than the whole budget is cut with a note instead of failing', () => {
    const paste = 'log line with some words 12345\n'.repeat(5_000);
    const huge = buildModelMessages(contextInput([userTurn('Ana', `why does this fail?\n${paste}`)], { budget }));
    expect(huge.report.totalTokens).toBeLessThanOrEqual(12_000);
    expect(textOf(huge.messages.at(-1)!.content)).toMatch(/Ana: why does this fail\?\n[\s\S]*\n\[cut: [\d,]+ more characters of this message did not fit\]$/);
  });

  test('preloaded text takes a bounded share: whole short texts first, then a slice; the list says how much', () => {
    const csv = file('F1', 'orders.csv', { sizeBytes: 400_000 });
    const md = file('F2', 'readme.md', { sizeBytes: 15 });
    const csvText = 'id,customer,total\n'.concat('1,ACME Corporation,1200.50\n'.repeat(2000));
    const request = userTurn('Bo', 'and the orders', [csv]);
    const built2 = buildModelMessages(
      contextInput([userTurn('Ana', 'see readme', [md]), botTurn('ok'), request], {
        files: [{ ...csv, messageTs: request.ts, authorName: 'Bo' }, md],
        preloads: new Map([
          ['F1', csvText],
          ['F2', '# Readme\nShort.'],
        ]),
        budget: { contextWindow: 16_000, reserveForAnswer: 4_000, preloadTokens: 1_000 },
      }),
    );
    const current = textOf(built2.messages.at(-1)!.content);
    expect(built2.report.preloadedFileIds).toEqual(['F1', 'F2']);
    expect(built2.report.breakdown.preloads).toBeLessThanOrEqual(1_000);
    expect(current).toMatch(
      new RegExp(`from Bo, message ${request.ts} \\(this message\\):\nF1 \\| "orders.csv" \\| csv \\| 391 KB \\| - \\| first [\\d,]+ chars\n`),
    );
    expect(current).toContain('F2 | "readme.md" | md | 15 B | - | yes, whole\n');
    expect(current).toContain('<file_data id="F2" name="readme.md" chars="15">\n# Readme\nShort.\n</file_data>');
  });

  test('two long preloads share the allowance: the head of each rather than more of one', () => {
    const a = file('F1', 'a.csv', { sizeBytes: 90_000 });
    const b = file('F2', 'b.md', { sizeBytes: 90_000 });
    const long = (label: string) => `${label}\n${'row,value,note\n'.repeat(3_000)}`;
    const built2 = buildModelMessages(
      contextInput([userTurn('Ana', 'compare', [a, b])], {
        files: [a, b],
        preloads: new Map([
          ['F1', long('first file')],
          ['F2', long('second file')],
        ]),
        budget: { contextWindow: 32_000, reserveForAnswer: 4_000, preloadTokens: 1_200 },
      }),
    );
    const current = textOf(built2.messages.at(-1)!.content);
    expect(built2.report.preloadedFileIds).toEqual(['F1', 'F2']);
    expect(current).toContain('<file_data id="F1" name="a.csv" chars="');
    expect(current).toContain('first file\nrow,value,note');
    expect(current).toContain('second file\nrow,value,note');
    expect(built2.report.breakdown.preloads).toBeLessThanOrEqual(1_200);
  });

  test('the newest turns of a 300-message thread survive a small window verbatim', () => {
    const { turns, files, preloads } = makeSyntheticThread(300, 50);
    const small = buildModelMessages(contextInput(turns, { files, preloads, budget: { contextWindow: 16_000, reserveForAnswer: 4_000 } }));
    expect(small.report.droppedTurns).toBeGreaterThanOrEqual(200);
    expect(small.report.totalTokens).toBeLessThanOrEqual(12_000);
    const kept = small.messages.slice(-10).map((m) => textOf(m.content));
    turns.slice(-10).forEach((turn, i) => {
      if (turn.role === 'user') expect(kept[i]!.endsWith(`${turn.speaker}: ${turn.text}`)).toBe(true);
      else expect(kept[i]!.startsWith(turn.text)).toBe(true);
    });
  });
});
