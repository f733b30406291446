/**
 * Slack reads `&`, `<` and `>` as control characters everywhere in mrkdwn, code included (a message's stored text
 * has `&lt;` inside its code blocks too), so code going into mrkdwn is escaped in full.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The inverse, for text that must be measured or re-wrapped as the reader will see it. */
export function unescapeMrkdwn(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
