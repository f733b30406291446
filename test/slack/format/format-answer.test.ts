import { describe, expect, it } from 'vitest';
import { formatAnswerForSlack } from '../../../src/slack/format';
import { checkMessage } from '../../fakes/slack-limits';
import { generateMarkdown, seededRandom } from './generate-markdown';
import { unbalancedFence } from './split-invariants';

const ANSWER = [
  '## Why the deploy failed',
  '',
  'The **migration** timed out; see [the run](https://ci.example.com/runs/42).',
  '',
  '1. Raise `statement_timeout`',
  '2. Re-run the job',
  '',
  '| step | took |',
  '|------|------|',
  '| migrate | 31 s |',
  '',
  '```sql',
  'SET statement_timeout = 60000;',
  '```',
].join('\n');

describe('formatAnswerForSlack', () => {
  it('sends a table as an aligned grid in the markdown block, its cells plain and any Slack token in them defused', () => {
    const [message] = formatAnswerForSlack('Before.\n\n| who | note |\n|:--|--:|\n| **Ana** | &lt;!here&gt; |\n| `a|b` | [docs](https://x.example) |\n\nAfter.');
    expect(message!.blocks).toEqual([
      {
        type: 'markdown',
        text: ['Before.', '', '```', 'who | note', '----+-------------------------', 'Ana | <\u200b!here>', 'a|b | docs (https://x.example)', '```', '', 'After.'].join('\n'),
      },
    ]);
  });

  it('posts a short answer as one message: the markdown as Slack renders it, mrkdwn as the fallback text', () => {
    const [message, ...more] = formatAnswerForSlack(ANSWER);
    expect(more).toEqual([]);
    // Headings, bold, lists, links and code fences are left for the markdown block to render; the table becomes the
    // fallback's aligned grid, since the markdown block shows tables unreliably.
    const grid = ['```', 'step    | took', '--------+-----', 'migrate | 31 s', '```'].join('\n');
    expect(message!.blocks).toEqual([{ type: 'markdown', text: ANSWER.replace('| step | took |\n|------|------|\n| migrate | 31 s |', grid) }]);
    expect(message!.text).toBe(
      [
        '*Why the deploy failed*',
        '',
        'The *migration* timed out; see <https://ci.example.com/runs/42|the run>.',
        '',
        '1. Raise `statement_timeout`',
        '2. Re-run the job',
        '',
        '```',
        'step    | took',
        '--------+-----',
        'migrate | 31 s',
        '```',
        '',
        '```',
        'SET statement_timeout = 60000;',
        '```',
      ].join('\n'),
    );
    expect(checkMessage(message!)).toBeUndefined();
  });

  it('never lets the answer ping anyone, in the blocks or in the notification text', () => {
    const [message] = formatAnswerForSlack('Done <!channel>, thanks <@U024BE7LH>!', { resolveName: () => 'Ana' });
    expect(message!.blocks[0]!.text).toBe('Done @\u200bchannel, thanks @\u200bAna!');
    expect(message!.text).toBe('Done @\u200bchannel, thanks @\u200bAna!');
  });

  it('splits a long answer into messages Slack accepts, each within the markdown limit', () => {
    const paragraph = 'The quick brown fox jumps over the lazy dog & runs < 5 km. '.repeat(40).trim();
    const answer = Array.from({ length: 12 }, (_, i) => `### Part ${i + 1}\n\n${paragraph}`).join('\n\n');
    const messages = formatAnswerForSlack(answer);
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) {
      expect(checkMessage(message)).toBeUndefined();
      expect(message.blocks).toHaveLength(1);
      expect(message.blocks[0]!.text.length).toBeLessThanOrEqual(12_000);
    }
    // Escaping happened before the split: the limit holds for what is sent.
    expect(messages[0]!.blocks[0]!.text).toContain('dog & runs &lt; 5 km');
    expect(messages[0]!.text).toContain('dog &amp; runs &lt; 5 km');
  });

  it('honours a smaller limit, and never a larger one than Slack allows', () => {
    const answer = 'word '.repeat(5_000);
    expect(formatAnswerForSlack(answer, { maxCharsPerMessage: 1_000 }).every((m) => m.blocks[0]!.text.length <= 1_000)).toBe(true);
    expect(formatAnswerForSlack(answer, { maxCharsPerMessage: 50_000 }).every((m) => m.blocks[0]!.text.length <= 12_000)).toBe(true);
  });

  it('keeps the fallback text to about 4,000 characters, never ending inside a code block', () => {
    const answer = 'Here is the log:\n\n```\n' + 'ERROR something broke at line 42\n'.repeat(300) + '```';
    const [message] = formatAnswerForSlack(answer);
    expect(message!.blocks[0]!.text).toBe(answer);
    expect(message!.text.length).toBeLessThanOrEqual(4_000);
    expect(message!.text.endsWith('ERROR something broke at line 42\n```\n…')).toBe(true);
    expect(unbalancedFence(message!.text)).toBeUndefined();
  });

  it('gives no messages for an empty answer', () => {
    expect(formatAnswerForSlack('  \n ')).toEqual([]);
  });

  it('turns any generated answer into messages Slack accepts', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const answer = generateMarkdown(seededRandom(seed), { fences: true, tables: true, longWords: true, cjk: true, emoji: true });
      for (const message of formatAnswerForSlack(answer)) {
        expect(checkMessage(message), `seed ${seed}`).toBeUndefined();
        expect(message.text.length, `seed ${seed}`).toBeLessThanOrEqual(4_000);
        expect(unbalancedFence(message.blocks[0]!.text), `seed ${seed}`).toBeUndefined();
      }
    }
  });
});
