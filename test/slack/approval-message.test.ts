/**
 * The approval message shows each argument as it will be sent: text literally in a code block (Slack's formatting
 * characters and backticks cannot change what the approver reads), long values folded with the whole one click
 * away in a modal — every block within Slack's limits, as the fake Slack enforces them.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalPrompt } from '../../src/core/approval';
import { DETAILS_ACTION_ID, literalBlock, renderApprovalDecided, renderApprovalDetails, renderApprovalRequest } from '../../src/slack/approval-message';
import { unescapeMrkdwn } from '../../src/slack/format/escape-mrkdwn';
import { checkMessage, LIMITS } from '../fakes/slack-limits';

type Block = { type: string; text?: { text: string }; accessory?: { action_id: string; value: string; text: { text: string } } };

const prompt = (args: unknown): ApprovalPrompt => ({ tool: 'fs__write_file', server: 'fs', action: 'write_file', arguments: args, hints: { destructive: true } });
const request = (args: unknown) => renderApprovalRequest({ approvalId: 7, prompt: prompt(args), requestedBy: 'U1', expiresAt: new Date('2026-11-21T12:00:00Z'), timeZone: 'UTC' });
const sections = (blocks: unknown[]) => (blocks as Block[]).filter((block) => block.type === 'section').map((block) => block.text!.text);

/** What a reader sees inside the code blocks of a mrkdwn text: Slack's escapes undone, the invisible spaces gone. */
function codeIn(text: string): string {
  return [...text.matchAll(/```([\s\S]*?)```/g)].map((match) => unescapeMrkdwn(match[1]!).replace(/\u200B/g, '')).join('');
}

describe('the approval request', () => {
  it('shows text arguments literally: markdown, mentions, links, & < > and backticks as written', () => {
    const content = '# Title\n**Sign in** with <@U0ADMIN> & <https://evil.example|a link> `code` ```fence``` _x_';
    const message = request({ path: '/data/notes.md', content, mode: 420, overwrite: true });
    expect(checkMessage(message)).toBeUndefined();
    const [, path, text, mode, overwrite] = sections(message.blocks);
    expect(path).toBe('*Path*\n```/data/notes.md```');
    expect(text).toMatch(/^\*Content\*\n```[\s\S]*```$/);
    expect(codeIn(text!)).toBe(content);
    // Nothing in it that Slack would read as a mention, a link or the end of the block.
    expect(text).not.toMatch(/<[@!#h]/);
    expect(text!.slice(3 + '*Content*\n'.length, -3)).not.toContain('``');
    expect([mode, overwrite]).toEqual(['*Mode*\n`420`', '*Overwrite*\n`true`']);
    // Short enough to show whole: no button.
    expect(JSON.stringify(message.blocks)).not.toContain(DETAILS_ACTION_ID);
  });

  it('folds a long value to its first 800 characters, counts the rest, and offers the whole behind a button', () => {
    const content = 'x'.repeat(5_000);
    const message = request({ content });
    expect(checkMessage(message)).toBeUndefined();
    const text = sections(message.blocks)[1]!;
    expect(codeIn(text)).toBe('x'.repeat(800));
    expect(text).toContain('… _(4,200 more characters: *Show full arguments* above)_');
    const button = (message.blocks as Block[])[0]!.accessory!;
    expect(button).toMatchObject({ action_id: DETAILS_ACTION_ID, value: '7', text: { text: 'Show full arguments' } });
    // Still there once decided, so what was approved can be read in full later.
    const decided = renderApprovalDecided(prompt({ content }), { status: 'approved', by: 'U1', at: new Date() }, 'UTC', 7);
    expect(JSON.stringify(decided.blocks)).toContain(DETAILS_ACTION_ID);
    expect(JSON.stringify(decided.blocks)).not.toContain('threadwise_approve');
  });

  it('stays within a section’s 3,000 characters when escaping multiplies a value’s length', () => {
    const message = request({ content: '&<>'.repeat(1_000), other: '`'.repeat(900) });
    expect(checkMessage(message)).toBeUndefined();
    for (const text of sections(message.blocks)) expect(text.length).toBeLessThanOrEqual(LIMITS.sectionTextChars);
    expect(JSON.stringify(message.blocks)).toContain(DETAILS_ACTION_ID);
  });

  it('shows objects as JSON, and says so for an empty or blank text', () => {
    const [, labels, empty, blank] = sections(request({ labels: ['bug', 'p1'], empty: '', blank: '  \n' }).blocks);
    expect(codeIn(labels!)).toBe('[\n  "bug",\n  "p1"\n]');
    expect(empty).toBe('*Empty*\n_(empty text)_');
    expect(blank).toBe('*Blank*\n_(only spaces and line breaks: 3 characters)_');
  });
});

describe('the full arguments', () => {
  it('fit a modal within Slack’s limits and read exactly as sent', () => {
    const content = `line one & <two>\n${'lorem ipsum '.repeat(2_000)}\`\`\`end`;
    const view = renderApprovalDetails(prompt({ path: '/data/a.md', content, labels: ['a'] }));
    expect(view.title.text.length).toBeLessThanOrEqual(24);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    const texts = sections(view.blocks);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(LIMITS.sectionTextChars);
    const contentStart = texts.findIndex((text) => text.startsWith('*Content*'));
    const labelsStart = texts.findIndex((text) => text.startsWith('*Labels*'));
    expect(codeIn(texts.slice(contentStart + 1, labelsStart).join(''))).toBe(content);
    expect(texts[contentStart]).toBe(`*Content* (${content.length.toLocaleString('en-US')} characters)`);
  });

  it('counts what does not fit in 100 blocks', () => {
    const view = renderApprovalDetails(prompt({ content: 'y'.repeat(400_000) }));
    expect(view.blocks).toHaveLength(100);
    const shown = codeIn(sections(view.blocks).join('')).length;
    expect(JSON.stringify(view.blocks.at(-1))).toContain(`${(400_000 - shown).toLocaleString('en-US')} characters more do not fit in a Slack window`);
  });
});

describe('literalBlock', () => {
  it('keeps a run of backticks from closing the block', () => {
    expect(literalBlock('a```b')).toBe('```a`\u200B`\u200B`\u200Bb```');
  });
});
