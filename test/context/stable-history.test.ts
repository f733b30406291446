import { describe, expect, test } from 'vitest';
import { buildModelMessages } from '../../src/context';
import { botTurn, contextInput, file, userTurn } from './fixtures';

/**
 * Earlier turns must render byte-identically on every rebuild: file ids in old tool calls keep resolving, and the
 * provider's prompt cache keeps hitting on the unchanged prefix.
 */
describe('earlier turns are byte-identical across rebuilds', () => {
  const f1 = file('F1', 'contract.pdf');
  const f2 = file('F2', 'diagram.png');
  const turns = [
    userTurn('Ana', 'Please check the contract', [f1]),
    botTurn('Clause 4 sets a 30-day notice period (contract.pdf, p. 2).', 'read F1 p. 1–2'),
    userTurn('Bo', 'Here is the diagram too', [f2]),
    botTurn('The diagram shows the same flow.', 'looked at F2'),
    userTurn('Ana', 'Which clause covers termination?'),
  ];
  const first = buildModelMessages(contextInput(turns, { files: [f1, f2] }));

  test('the same input gives the same messages', () => {
    expect(buildModelMessages(contextInput(turns, { files: [f1, f2] })).messages).toEqual(first.messages);
  });

  test('a new turn, a new file, a later clock and a newly known page count leave earlier turns untouched', () => {
    const f3 = file('F3', 'addendum.docx');
    const next = buildModelMessages(
      contextInput(
        [...turns, botTurn('Clause 9.', 'read F1 p. 5'), userTurn('Cy', 'and the addendum?', [f3])],
        {
          files: [{ ...f1, pageCount: 12 }, f2, f3],
          now: new Date('2026-05-13T08:00:00Z'),
          preloads: new Map([['F3', 'Addendum text']]),
        },
      ),
    );
    // Everything up to the old current turn is the same prefix, byte for byte.
    const earlier = first.messages.slice(0, -1);
    expect(next.messages.slice(0, earlier.length)).toEqual(earlier);
    expect(JSON.stringify(next.messages.slice(0, earlier.length))).toBe(JSON.stringify(earlier));
  });

  test('once answered, the old current turn keeps only its files section and the words', () => {
    const next = buildModelMessages(
      contextInput([...turns, botTurn('Clause 9.'), userTurn('Ana', 'thanks')], { files: [f1, f2] }),
    );
    expect(next.messages[5]).toEqual({ role: 'user', content: 'Ana: Which clause covers termination?' });
  });
});
