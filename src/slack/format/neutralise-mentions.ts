import { segmentCode } from './segment-code';

export interface NeutraliseOptions {
  /** A user id's display name, so `<@U123>` reads "@Ana" instead of pinging Ana. */
  resolveName?: (userId: string) => string | undefined;
}

/**
 * A zero-width space after "@": the reader sees "@here", but no Slack parser (link_names, the markdown block,
 * notifications) sees a mention in it.
 */
const ZWSP = '\u200b';

/**
 * One pass over prose: a Slack token `<…>`, an angle bracket, or a bare broadcast word. Token alternatives only admit
 * shapes Slack gives meaning to; any other `<` falls through to the single-character case and is escaped, which also
 * covers `a < b`, `Vec<String>` and `<!DOCTYPE>`. Slack shows `&lt;` as "<" in a markdown block without reading it
 * as a token again.
 *
 * `&` is left alone: Slack only reads it in `&amp;`, `&lt;` and `&gt;`, which already say what they mean, and it does
 * not decode entities in a markdown link destination, so `&amp;` there would corrupt every query string.
 */
const PROSE = new RegExp(
  [
    String.raw`(?<keep><(?:https?|mailto|tel|ftp|slack):[^<>\s|]+(?:\|[^<>\n]*)?>|<#[CG][A-Z0-9]+(?:\|[^<>\n]*)?>|<!date\^[^<>\n]*>)`,
    String.raw`<@(?<userId>[UW][A-Z0-9]+)(?:\|(?<userLabel>[^<>\n]*))?>`,
    String.raw`<!(?<special>here|channel|everyone|group)(?:\|[^<>\n]*)?>`,
    String.raw`<!subteam\^[A-Z0-9]+(?:\|(?<groupLabel>[^<>\n]*))?>`,
    String.raw`(?<![\p{L}\p{N}_@.+\-])@(?<bare>here|channel|everyone)(?![\p{L}\p{N}_])`,
    '[<>]',
  ].join('|'),
  'giu',
);

interface ProseGroups {
  keep?: string;
  userId?: string;
  userLabel?: string;
  special?: string;
  groupLabel?: string;
  bare?: string;
}

/** Inside code only real Slack mention tokens are touched, so code stays copyable (`<!DOCTYPE html>` is not). */
const CODE_TOKEN = /<(?=(?:@[UW][A-Z0-9]+|!(?:here|channel|everyone|group)|!subteam\^[^<>\n]*)(?:\|[^<>\n]*)?>)/g;

/** Makes model-written text safe to post: the bot never pings people on its own. */
export function neutraliseMentions(text: string, options: NeutraliseOptions = {}): string {
  return segmentCode(text)
    .map((segment) =>
      segment.kind === 'code'
        ? // A zero-width space after "<" keeps the code looking the same while it stops being a token.
          segment.text.replace(CODE_TOKEN, `<${ZWSP}`)
        : neutraliseProse(text, segment.text, segment.start, options),
    )
    .join('');
}

function neutraliseProse(whole: string, prose: string, offset: number, options: NeutraliseOptions): string {
  return prose.replace(PROSE, (...args: unknown[]) => {
    const match = args[0] as string;
    const groups = args.at(-1) as ProseGroups;
    const at = offset + (args.at(-3) as number);
    if (groups.keep !== undefined) return match;
    if (groups.userId !== undefined) return renderUser(groups.userId, groups.userLabel, options);
    if (groups.special !== undefined) return broadcast(groups.special);
    if (groups.bare !== undefined) return `@${ZWSP}${groups.bare}`;
    if (match.startsWith('<!subteam^')) return asHandle(groups.groupLabel?.trim() || 'group');
    if (match === '<') return '&lt;';
    // ">" opening a line is a blockquote in markdown; escaping it would turn the quote into a literal ">".
    return startsBlockquote(whole, at) ? '>' : '&gt;';
  });
}

function renderUser(userId: string, label: string | undefined, options: NeutraliseOptions): string {
  return asHandle(options.resolveName?.(userId) ?? (label?.trim() || userId));
}

/** "@name" that mentions no one. Names are chosen by users, so one called "<!here>" must not become a token. */
function asHandle(name: string): string {
  return `@${ZWSP}${name.replace(/^@/, '').replace(/</g, '&lt;').replace(/>/g, '&gt;')}`;
}

/** `<!group>` is the legacy spelling of `<!channel>`. */
function broadcast(word: string): string {
  const lower = word.toLowerCase();
  return `@${ZWSP}${lower === 'group' ? 'channel' : lower}`;
}

function startsBlockquote(text: string, at: number): boolean {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t>]*$/.test(text.slice(lineStart, at));
}
