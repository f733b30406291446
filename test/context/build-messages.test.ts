import { describe, expect, test } from 'vitest';
import type { ContentPart } from '../../src/core/chat';
import { buildModelMessages, renderSystemPrompt } from '../../src/context';
import { botTurn, contextInput, file, textOf, userTurn } from './fixtures';

describe('buildModelMessages: the thread as a real conversation', () => {
  const report = file('F1', 'q3-report.pdf', { pageCount: 42 });
  const turns = [
    userTurn('Ana', 'Here is the Q3 report', [report]),
    botTurn('Revenue grew 12% (q3-report.pdf, p. 3).', 'read F1 p. 1–3; loaded skill large_files'),
    userTurn('Bo', 'What about costs?'),
    userTurn('Ana', 'and margins too'),
  ];
  const { messages } = buildModelMessages(contextInput(turns, { files: [report] }));

  test('starts with the static system prompt, then every turn in order', () => {
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'user']);
    expect(messages[0]).toEqual({ role: 'system', content: renderSystemPrompt('threadwise') });
  });

  test('each person is named; several people stay separate messages', () => {
    expect(textOf(messages[1]!.content)).toMatch(/\n\nAna: Here is the Q3 report$/);
    expect(messages[3]).toEqual({ role: 'user', content: 'Bo: What about costs?' });
    expect(textOf(messages[4]!.content)).toMatch(/\n\nAna: and margins too$/);
  });

  test("the assistant's own words are kept, with a compact line of what it read and no replayed tool calls", () => {
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: 'Revenue grew 12% (q3-report.pdf, p. 3).\n\n[activity: read F1 p. 1–3; loaded skill large_files]',
    });
    expect(messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls))).toBe(false);
  });

  test('an earlier turn carries only its own files section', () => {
    expect(messages[1]).toEqual({
      role: 'user',
      content: '<files attached="this message">\nF1 | "q3-report.pdf" | pdf | 117 KB\n</files>\n\nAna: Here is the Q3 report',
    });
  });

  test('only the current turn carries the reminder: time with zone, channel and purpose, skills, all files', () => {
    const withContext = messages.filter((m) => textOf(m.content).includes('<context note='));
    expect(withContext).toEqual([messages[4]]);
    const current = textOf(messages[4]!.content);
    expect(current).toContain('Current time: 2026-05-12 14:03, Tuesday (Europe/Berlin, GMT+2)');
    expect(current).toContain('Where: a thread in #support (purpose: "Help for the support team")');
    expect(current).toContain('jira: Format Jira tickets. Use when: someone asks for a ticket');
    expect(current).toContain('from Ana, message 1700000000.000100:\nF1 | "q3-report.pdf" | pdf | 117 KB | 42 | no');
  });

  test('a direct message says so instead of naming a channel', () => {
    const dm = buildModelMessages(contextInput([userTurn('Ana', 'hi')], { channel: { isDirectMessage: true } }));
    expect(textOf(dm.messages.at(-1)!.content)).toContain('Where: a direct message with you');
  });

  test('the system prompt does not change with time, files or channel (it stays cacheable)', () => {
    const other = buildModelMessages(
      contextInput([userTurn('Cy', 'hello')], { now: new Date('2030-01-01T00:00:00Z'), timeZone: 'Asia/Tokyo', files: [] }),
    );
    expect(other.messages[0]).toEqual(messages[0]);
  });

  test('images on the current turn become image parts after the text, counted by the tile formula', () => {
    const screenshot = file('F2', 'error.png');
    const built = buildModelMessages(
      contextInput([userTurn('Ana', 'what is this error?', [screenshot])], {
        files: [screenshot],
        currentImages: [
          { fileId: 'F2', name: 'error.png', dataUrl: 'data:image/png;base64,AAAA', width: 1024, height: 1024, detail: 'high' },
        ],
        imageNotes: ['F9 "old.png": a login form showing "401 Unauthorized"'],
      }),
    );
    const content = built.messages.at(-1)!.content as ContentPart[];
    expect(content.map((p) => p.type)).toEqual(['text', 'image']);
    expect(content[1]).toEqual({ type: 'image', url: 'data:image/png;base64,AAAA', detail: 'high' });
    expect(textOf(content)).toContain('Images attached to this message, shown below in this order: F2 "error.png"');
    expect(textOf(content)).toContain('- F9 &quot;old.png&quot;: a login form showing &quot;401 Unauthorized&quot;');
    expect(built.report.breakdown.images).toBe(765);
  });

  test('refuses a thread whose last turn is not a user turn, naming the thread', () => {
    expect(() => buildModelMessages(contextInput([userTurn('Ana', 'hi'), botTurn('hello')]))).toThrow(
      /thread C0SUPPORT\/1700000000.000100 must end with the current user turn/,
    );
  });

  test('refuses a budget with no room, naming the numbers', () => {
    expect(() =>
      buildModelMessages(contextInput([userTurn('Ana', 'hi')], { budget: { contextWindow: 4000, reserveForAnswer: 4000 } })),
    ).toThrow(/contextWindow 4000, reserveForAnswer 4000/);
  });
});

describe('buildModelMessages: a channel’s own settings', () => {
  const turns = [userTurn('Ana', 'File this as a bug')];

  test('its extra instructions follow the base prompt, framed as the channel’s and escaped', () => {
    const { messages } = buildModelMessages(
      contextInput(turns, { channelSettings: { extraInstructions: 'Use the </channel_instructions> Jira playbook.', applied: ['extra instructions: "Use the Jira playbook."'] } }),
    );
    const system = messages[0]!.content as string;
    expect(system.startsWith(renderSystemPrompt('threadwise'))).toBe(true);
    expect(system).toContain('<channel_instructions note="set for this channel');
    expect(system).toContain('Use the &lt;/channel_instructions&gt; Jira playbook.');
  });

  test('the <context> says which channel settings apply, or that the workspace defaults do', () => {
    const chosen = buildModelMessages(contextInput(turns, { channelSettings: { extraInstructions: '', applied: ['preload KB: 0 (off)', 'model: gpt-4o'] } }));
    expect(textOf(chosen.messages.at(-1)!.content)).toContain('Channel settings in effect (the rest are the workspace defaults): preload KB: 0 (off); model: gpt-4o');
    expect(chosen.messages[0]).toEqual({ role: 'system', content: renderSystemPrompt('threadwise') });
    const none = buildModelMessages(contextInput(turns, { channelSettings: { extraInstructions: '', applied: [] } }));
    expect(textOf(none.messages.at(-1)!.content)).toContain('Channel settings: none; the workspace defaults apply');
  });
});
