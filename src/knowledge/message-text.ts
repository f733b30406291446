/**
 * Slack's stored message text ("<@U1> see <https://x.io|the runbook> in <#C2|ops> &amp; …") as people read it, for the
 * index and for what the tools show: links keep their label and address, channel references their name, entities
 * are decoded. User mentions stay as their id ("@U1"): names are resolved when a result is shown, not stored.
 */
export function readableMessageText(text: string): string {
  return text
    .replace(/<@([UW][A-Z0-9]+)(?:\|([^>]*))?>/g, (_, id: string, name?: string) => `@${name || id}`)
    .replace(/<#(C[A-Z0-9]+)(?:\|([^>]*))?>/g, (_, id: string, name?: string) => `#${name || id}`)
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, '@$1')
    .replace(/<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>/g, (_, name?: string) => name ?? '@group')
    .replace(/<!date\^[^|>]*\|([^>]*)>/g, '$1')
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<((?:https?|mailto):[^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\u0000/g, ' ');
}

/** Words in a text, for BM25's length normalisation (CJK characters count one each). */
export function countWords(text: string): number {
  const words = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}]+/gu);
  return Math.max(1, words?.length ?? 0);
}

/** Slack ts → Date (seconds since the epoch, microseconds after the point). */
export function tsToDate(ts: string): Date {
  return new Date(Math.floor(Number(ts) * 1000));
}

/** Date → the Slack ts form used for `oldest` / `latest`. */
export function dateToTs(date: Date | number): string {
  const ms = typeof date === 'number' ? date : date.getTime();
  return (ms / 1000).toFixed(6);
}
