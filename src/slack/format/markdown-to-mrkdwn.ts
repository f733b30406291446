import { convertProseToMrkdwn } from './convert-prose-to-mrkdwn';
import { escapeMrkdwn } from './escape-mrkdwn';
import type { Fence } from './find-fences';
import { neutraliseMentions } from './neutralise-mentions';
import { normaliseNewlines } from './normalise-newlines';
import { parseParts, type Part } from './parse-parts';
import { renderTableAsCode } from './render-table-as-code';

/**
 * Standard markdown → Slack mrkdwn (for fallbacks: the `text` field, chat.update of a status message, section blocks).
 * Mentions are neutralised on the way, so the result is safe to post as it is.
 */
export function markdownToMrkdwn(markdown: string): string {
  const parts = parseParts(neutraliseMentions(normaliseNewlines(markdown)));
  return parts.map((part, i) => (i === 0 ? '' : part.blankBefore ? '\n\n' : '\n') + renderPartAsMrkdwn(part)).join('');
}

function renderPartAsMrkdwn(part: Part): string {
  switch (part.kind) {
    case 'prose':
      return convertProseToMrkdwn(part.text);
    case 'fence':
      return renderFenceAsMrkdwn(part.fence);
    case 'table':
      return renderTableAsCode(part.header, part.rows);
  }
}

/** mrkdwn code blocks take no language; a fence nested in a list loses the list's indentation, as CommonMark does. */
function renderFenceAsMrkdwn(fence: Fence): string {
  const indent = new RegExp(`^[ \\t]{0,${fence.indent.length}}`);
  const body = fence.body
    .split('\n')
    .map((line) => line.replace(indent, ''))
    .join('\n');
  return '```\n' + escapeMrkdwn(body) + '\n```';
}
