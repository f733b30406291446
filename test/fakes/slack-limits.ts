/**
 * Slack's message limits, enforced the way Slack enforces them (ok:false, not truncation), so that the app's
 * splitting and conversion of long answers is tested against the real rules rather than trusted.
 */

export const LIMITS = {
  /** chat.postMessage `text`: Slack truncates at 40,000 and rejects far beyond; the fake rejects above it. */
  textChars: 40_000,
  blocksPerMessage: 50,
  /** All `markdown` blocks of one message together. */
  markdownChars: 12_000,
  sectionTextChars: 3_000,
  headerTextChars: 150,
} as const;

/** An error code and a Slack-style `[ERROR]` line, or undefined when the message is acceptable. */
export function checkMessage(args: { text?: unknown; blocks?: unknown }): { error: string; detail?: string } | undefined {
  const { text, blocks } = args;
  if (typeof text === 'string' && text.length > LIMITS.textChars) return { error: 'msg_too_long' };
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks)) return { error: 'invalid_blocks_format', detail: 'blocks must be an array' };
  if (blocks.length > LIMITS.blocksPerMessage) {
    return { error: 'invalid_blocks', detail: `no more than ${LIMITS.blocksPerMessage} items allowed [json-pointer:/blocks]` };
  }
  let markdown = 0;
  for (const [i, block] of blocks.entries()) {
    if (!block || typeof block !== 'object' || typeof (block as { type?: unknown }).type !== 'string') {
      return { error: 'invalid_blocks', detail: `missing required field: type [json-pointer:/blocks/${i}]` };
    }
    const b = block as { type: string; text?: unknown };
    if (b.type === 'markdown') {
      if (typeof b.text !== 'string') return { error: 'invalid_blocks', detail: `must provide a string [json-pointer:/blocks/${i}/text]` };
      markdown += b.text.length;
    } else if (b.type === 'section' || b.type === 'header') {
      const inner = (b.text as { text?: unknown } | undefined)?.text;
      const max = b.type === 'section' ? LIMITS.sectionTextChars : LIMITS.headerTextChars;
      if (typeof inner === 'string' && inner.length > max) {
        return { error: 'invalid_blocks', detail: `must be less than ${max + 1} characters [json-pointer:/blocks/${i}/text]` };
      }
      if (b.type === 'header' && (b.text as { type?: unknown } | undefined)?.type !== 'plain_text') {
        return { error: 'invalid_blocks', detail: `must be plain_text [json-pointer:/blocks/${i}/text/type]` };
      }
    }
  }
  if (markdown > LIMITS.markdownChars) {
    return {
      error: 'invalid_blocks',
      detail: `cumulative length of markdown blocks must be at most ${LIMITS.markdownChars} characters [json-pointer:/blocks]`,
    };
  }
  return undefined;
}
