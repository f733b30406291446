/**
 * What a person sees: on a terminal the answer appears block by block, rendered, as the model writes it, with the
 * status on one line of stderr; piped, the answer is written once, whole and as plain markdown, when it is done.
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createMarkdownBlocks } from '../../src/terminal/markdown-blocks';
import { createTerminalDisplay } from '../../src/terminal/terminal-display';

/** A stream as the display sees it: everything written, and whether it is a terminal. */
function stream(isTTY: boolean) {
  const chunks: string[] = [];
  const fake = {
    isTTY,
    columns: 80,
    hasColors: () => false,
    write: (chunk: string) => {
      chunks.push(chunk);
      return true;
    },
    // node:readline's cursor functions call these on a terminal.
    clearLine: (_dir: number, callback?: () => void) => (fake.write('\u001b[2K'), callback?.(), true),
    cursorTo: (_x: number, _y?: unknown, callback?: () => void) => (fake.write('\r'), typeof callback === 'function' && callback(), true),
    /** What was written, without colours and cursor moves. */
    text: () => stripVTControlCharacters(chunks.join('')),
    chunks,
  };
  return fake;
}

describe('the terminal display', () => {
  it('writes a piped answer once, whole, as the markdown it is; status lines go to stderr one per change', () => {
    const stdout = stream(false);
    const stderr = stream(false);
    const display = createTerminalDisplay({ stdout: stdout as never, stderr: stderr as never }, { failTo: 'stderr' });
    display.status('Reading the thread…');
    display.status('Reading the thread…');
    display.status('searching report.pdf…');
    display.append('Let me look.');
    display.breakParagraph();
    display.append('**F1** says *yes*.');
    expect(stdout.text()).toBe('');
    display.finish('Let me look.\n\n**F1** says *yes*.', 'I reached my limit of 3 steps.');
    expect(stdout.text()).toBe('Let me look.\n\n**F1** says *yes*.\n\n_I reached my limit of 3 steps._\n');
    expect(stderr.text()).toBe('Reading the thread…\nsearching report.pdf…\n');
  });

  it('renders each block on a terminal as soon as it is complete, and the rest at the end', () => {
    const stdout = stream(true);
    const stderr = stream(true);
    const display = createTerminalDisplay({ stdout: stdout as never, stderr: stderr as never }, { failTo: 'stdout' });
    display.status('Thinking…');
    display.append('# Findings\n\nThe **first** point');
    expect(stdout.text()).toContain('Findings');
    expect(stdout.text()).not.toContain('first');
    display.append(' stands.\n\n- a **bold** item with `code`\n- another\n\n| a | b |\n|---|---|\n| 1 | 2 |');
    expect(stdout.text()).toContain('The first point stands.');
    expect(stdout.text()).not.toContain('**');
    display.finish('# Findings\n\nThe **first** point stands.\n\n- a **bold** item with `code`\n- another\n\n| a | b |\n|---|---|\n| 1 | 2 |');
    expect(stdout.text()).toMatch(/│ a +│ b +│/);
    expect(stdout.text()).toContain('* a bold item with code');
    expect(stdout.text()).not.toMatch(/\*\*|`/);
    // The status line was drawn in place and cleared; it never reached stdout.
    expect(stderr.text()).toContain('Thinking…');
    expect(stdout.text()).not.toContain('Thinking');
  });

  it('says so on a terminal when a streamed part is withdrawn, and shows a failure in the conversation', () => {
    const stdout = stream(true);
    const display = createTerminalDisplay({ stdout: stdout as never, stderr: stream(true) as never }, { failTo: 'stdout' });
    display.append('A first try.\n\nStill going');
    display.discardSinceBreak();
    expect(stdout.text()).toContain('(The connection to the model broke; it is writing that part again.)');
    display.fail('_Stopped: this answer was cancelled._');
    expect(stdout.text()).toContain('Stopped: this answer was cancelled.');
  });
});

describe('markdown blocks from a stream', () => {
  it('cuts at blank lines outside code fences, once the next line has begun and is not indented', () => {
    const blocks = createMarkdownBlocks();
    expect(blocks.push('One paragraph.\n\n')).toEqual([]);
    expect(blocks.push('- item\n\n  still the item\n\n```\ncode\n\nmore code\n```\n\nAfter')).toEqual([
      'One paragraph.',
      '- item\n\n  still the item',
      '```\ncode\n\nmore code\n```',
    ]);
    expect(blocks.flush()).toBe('After');
    blocks.push('dropped');
    blocks.discard();
    expect(blocks.flush()).toBe('');
  });
});
