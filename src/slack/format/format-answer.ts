import type { MarkdownBlock } from '@slack/types';
import { markdownToMrkdwn } from './markdown-to-mrkdwn';
import { neutraliseMentions, type NeutraliseOptions } from './neutralise-mentions';
import { normaliseNewlines } from './normalise-newlines';
import { renderTablesInMarkdown } from './render-tables-in-markdown';
import { FALLBACK_TEXT_CHARS, MARKDOWN_CHARS_PER_MESSAGE } from './slack-limits';
import { splitForSlack } from './split-for-slack';

/** The only block an answer needs: Slack renders standard markdown in it (headings, lists, code; tables go as code). */
type SlackBlock = MarkdownBlock;

export interface SlackMessage {
  /** mrkdwn for notifications, search and clients that cannot show blocks. */
  text: string;
  blocks: SlackBlock[];
}

export interface FormatAnswerOptions extends NeutraliseOptions {
  /** Markdown characters per message; capped at Slack's 12,000 for all markdown blocks of one message. */
  maxCharsPerMessage?: number;
}

/** One answer → one or more Slack messages, each { text, blocks } within the limits. An empty answer gives none. */
export function formatAnswerForSlack(markdown: string, options: FormatAnswerOptions = {}): SlackMessage[] {
  const maxChars = Math.min(options.maxCharsPerMessage ?? MARKDOWN_CHARS_PER_MESSAGE, MARKDOWN_CHARS_PER_MESSAGE);
  // Neutralise before splitting: escaping makes the text longer, and the limit applies to what is sent.
  return splitForSlack(toSafeMarkdown(normaliseNewlines(markdown), options), maxChars).map(toSlackMessage);
}

/** Model-written markdown as a markdown block may show it: mentions defused (named), tables as aligned code. */
export function toSafeMarkdown(markdown: string, options: NeutraliseOptions = {}): string {
  return renderTablesInMarkdown(neutraliseMentions(markdown, options));
}

/** One piece of markdown that is safe to post and within the limits (a piece of a split) as a message. */
export function toSlackMessage(piece: string): SlackMessage {
  return { text: toFallbackText(piece), blocks: [{ type: 'markdown', text: piece }] };
}

/**
 * The piece as mrkdwn, cut to the first ~4,000 characters at a good boundary (and never inside a code block, so the
 * notification does not end in an unclosed ```).
 */
function toFallbackText(piece: string): string {
  const mrkdwn = markdownToMrkdwn(piece);
  if (mrkdwn.length <= FALLBACK_TEXT_CHARS) return mrkdwn;
  const [first = ''] = splitForSlack(mrkdwn, FALLBACK_TEXT_CHARS - 2);
  // After a closing ``` the ellipsis takes its own line: "``` …" would no longer read as a closing fence.
  return first.endsWith('```') ? `${first}\n…` : `${first} …`;
}
