/**
 * Slack's message limits that shape how an answer is cut up. Lengths are counted in UTF-16 code units (JavaScript's
 * `length`), never fewer than Slack's characters, so staying under them in code units stays under them in Slack.
 */

/**
 * All `markdown` blocks of one message together ("The cumulative limit for all markdown blocks in a single payload is
 * 12,000 characters"; docs.slack.dev/reference/block-kit/blocks/markdown-block).
 */
export const MARKDOWN_CHARS_PER_MESSAGE = 12_000;

/**
 * The `text` of a message that also has blocks is what notifications and screen readers show. Slack truncates it at
 * 40,000 characters but has long asked for messages under 4,000 (api.slack.com/changelog/2018-04-truncating-really-long-messages).
 */
export const FALLBACK_TEXT_CHARS = 4_000;
