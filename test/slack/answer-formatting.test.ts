/**
 * What the model writes, as people see it in Slack: a markdown table arrives as an aligned grid (Slack's markdown
 * block shows tables unreliably), and a person the model mentions is named, not pinged and not shown as an id.
 */
import { describe, expect, it } from 'vitest';
import { ANA, BEN, CHANNEL, useHarness } from '../support/harness';

const h = useHarness();

/** Every piece of markdown the bot sent: stream text, and the markdown blocks of posts, edits and stream stops. */
function markdownSent(): string[] {
  return h.slack.calls
    .filter((call) => call.method.startsWith('chat.'))
    .flatMap((call) => {
      const body = call.body as { markdown_text?: unknown; blocks?: unknown };
      const blocks = typeof body.blocks === 'string' ? (JSON.parse(body.blocks) as unknown[]) : ((body.blocks as unknown[] | undefined) ?? []);
      const inBlocks = blocks
        .filter((block): block is { type: string; text: string } => (block as { type?: string }).type === 'markdown')
        .map((block) => block.text);
      return typeof body.markdown_text === 'string' ? [body.markdown_text, ...inBlocks] : inBlocks;
    });
}

const RAW_TABLE_DELIMITER = /^\s*\|?\s*:?-{3,}:?\s*\|/m;

describe('a table in the answer', () => {
  it('goes out as an aligned code block, never as a raw markdown table, while streaming and at the end', async () => {
    const table = '| Service | Owner |\n|---|---|\n| billing | Ana |\n| search | **Ben** |';
    h.model.enqueue(
      { text: `Here is what I know so far:\n\n${table}\n\nLet me check the jira skill.`, toolCalls: [{ name: 'load_skill', arguments: { name: 'jira' } }] },
      { delayMs: 1_800, then: { text: `Owners:\n\n${table}\n\nAsk them in #ops.` } },
    );
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> who owns what?` });
    const [answer] = await h.answers(CHANNEL, ts);

    expect(answer).toContain('```\nService | Owner\n--------+------\nbilling | Ana\nsearch  | Ben\n```');
    expect(answer).toContain('Ask them in #ops.');
    const sent = markdownSent();
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((markdown) => RAW_TABLE_DELIMITER.test(markdown))).toEqual([]);
  });
});

describe('a person the model mentions', () => {
  it('shows as "@Ben" from the thread’s names, and is not pinged', async () => {
    const question = h.slack.addMessage(CHANNEL, { user: BEN, text: 'The search index is stale again.' });
    h.model.enqueue({ text: 'I would ask <@U0BEN>, who reported it, and <@U0ANA|ana>.' });
    await h.mention({ user: ANA, threadTs: question.ts, text: `<@${h.slack.botUserId}> who should look at this?` });
    const [answer] = await h.answers(CHANNEL, question.ts);

    expect(answer).toBe('I would ask @\u200bBen, who reported it, and @\u200bAna.');
    expect(markdownSent().join('\n')).not.toMatch(/<@U0|U0BEN/);
  });
});
