import { describe, expect, it } from 'vitest';
import { neutraliseMentions } from '../../../src/slack/format';

/** What a reader sees: the zero-width space after "@" is invisible. */
const visible = (text: string) => text.replaceAll('\u200b', '');

/** A Slack token that would notify someone: <!here>, <!channel>, <!everyone>, <!group>, <!subteam^…>, <@U…>, <@W…>. */
const PING_TOKEN = /<(?:!(?:here|channel|everyone|group|subteam\^)|@[UW])/i;

describe('neutraliseMentions: broadcasts', () => {
  it.each([
    ['<!here>', '@here'],
    ['<!channel>', '@channel'],
    ['<!everyone>', '@everyone'],
    ['<!here|here>', '@here'],
    ['<!channel|@channel>', '@channel'],
    ['<!group>', '@channel'],
  ])('%s becomes the harmless text %s', (token, shown) => {
    const out = neutraliseMentions(`Heads up ${token}: the deploy is done.`);
    expect(out).not.toMatch(PING_TOKEN);
    expect(visible(out)).toBe(`Heads up ${shown}: the deploy is done.`);
    expect(out).toContain(`@\u200b${shown.slice(1)}`);
  });

  it.each(['@here', '@channel', '@everyone', '@HERE'])('bare %s gets a zero-width space so link_names cannot expand it', (word) => {
    const out = neutraliseMentions(`${word} please review`);
    expect(out).toBe(`@\u200b${word.slice(1)} please review`);
  });

  it('leaves words that merely contain a broadcast word alone', () => {
    expect(neutraliseMentions('mail ops@here.com or @hereford or @channels')).toBe('mail ops@here.com or @hereford or @channels');
  });

  it('renders a user group by its label, without the ping', () => {
    expect(visible(neutraliseMentions('ask <!subteam^S0123ABC|@platform-team>'))).toBe('ask @platform-team');
    expect(visible(neutraliseMentions('ask <!subteam^S0123ABC>'))).toBe('ask @group');
  });
});

describe('neutraliseMentions: users', () => {
  const resolveName = (id: string) => ({ U024BE7LH: 'Ana', W0123: 'Bo' })[id];

  it('renders a known user as "@Name" that does not notify them', () => {
    const out = neutraliseMentions('Thanks <@U024BE7LH> and <@W0123>!', { resolveName });
    expect(out).not.toMatch(PING_TOKEN);
    expect(visible(out)).toBe('Thanks @Ana and @Bo!');
  });

  it('cannot be tricked by a display name that looks like a mention', () => {
    const out = neutraliseMentions('cc <@U1>', { resolveName: () => '<!channel>' });
    expect(out).not.toMatch(PING_TOKEN);
    expect(out).toBe('cc @\u200b&lt;!channel&gt;');
  });

  it('falls back to the label the token carries, then to the id', () => {
    expect(visible(neutraliseMentions('cc <@U999|carla>', { resolveName }))).toBe('cc @carla');
    expect(visible(neutraliseMentions('cc <@U999>'))).toBe('cc @U999');
  });
});

describe('neutraliseMentions: links and escaping', () => {
  it('keeps Slack links, channel links and dates as they are', () => {
    const text = 'See <https://example.com/a?b=1&c=2|the runbook>, <https://example.com>, <mailto:ops@example.com|ops>, <#C0123|general> and <!date^1392734382^{date_short}|Feb 18>.';
    expect(neutraliseMentions(text)).toBe(text);
  });

  it('keeps a link whose label mentions @here a link', () => {
    expect(neutraliseMentions('<https://example.com|@here>')).toBe('<https://example.com|@here>');
  });

  it('escapes stray < and > so Slack does not read them as markup', () => {
    expect(neutraliseMentions('if a < b && b > c then Vec<String>')).toBe('if a &lt; b && b &gt; c then Vec&lt;String&gt;');
    expect(neutraliseMentions('<!DOCTYPE html> and <b>bold</b>')).toBe('&lt;!DOCTYPE html&gt; and &lt;b&gt;bold&lt;/b&gt;');
  });

  it('leaves & alone, so link destinations keep their query strings (Slack does not decode entities there)', () => {
    const text = 'R&D: see [the query](https://example.com/?a=1&b=2) &amp; ![chart](https://example.com/c.png?x=1&y=2)';
    expect(neutraliseMentions(text)).toBe(text);
  });

  it('does not escape twice what is already escaped', () => {
    const once = neutraliseMentions('AT&T said 1 < 2 &lt; 3 <!here>');
    expect(once).toBe('AT&T said 1 &lt; 2 &lt; 3 @\u200bhere');
    expect(neutraliseMentions(once)).toBe(once);
  });

  it('keeps ">" that opens a blockquote, so the quote still renders', () => {
    expect(neutraliseMentions('> quoted line\n>> nested\nnot a -> quote')).toBe('> quoted line\n>> nested\nnot a -&gt; quote');
  });

  it('accepts Windows newlines around a blockquote', () => {
    expect(neutraliseMentions('first\r\n> quoted <!here>')).toBe('first\r\n> quoted @\u200bhere');
  });
});

describe('neutraliseMentions: code', () => {
  it('leaves code spans readable and unescaped, but breaks the mention token inside them', () => {
    const out = neutraliseMentions('Write `<!here>` or `a < b && c`, not <!here>.');
    expect(out).toBe('Write `<\u200b!here>` or `a < b && c`, not @\u200bhere.');
  });

  it('leaves fenced code as written except for real mention tokens', () => {
    const code = '```html\n<!DOCTYPE html>\n<p>a && b</p> <!-- @here -->\n<@U123> <!channel>\n```';
    const out = neutraliseMentions(code);
    expect(out).toBe('```html\n<!DOCTYPE html>\n<p>a && b</p> <!-- @here -->\n<\u200b@U123> <\u200b!channel>\n```');
    expect(out).not.toMatch(PING_TOKEN);
  });

  it('sees fences close with Windows newlines too, so prose after them is still neutralised', () => {
    expect(neutraliseMentions('```\r\ncode\r\n```\r\nthen <!here>')).toBe('```\r\ncode\r\n```\r\nthen @\u200bhere');
  });

  it('treats an unclosed fence as code to the end, like a markdown renderer would', () => {
    expect(neutraliseMentions('text\n```\na < b')).toBe('text\n```\na < b');
  });
});
