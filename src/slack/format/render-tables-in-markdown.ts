import { parseParts } from './parse-parts';
import { renderTableAsCode } from './render-table-as-code';

/**
 * Neutralised markdown with each table replaced in place by an aligned code block, for a markdown block: Slack's
 * rendering of tables there is unreliable (raw pipes on some clients), the fallback's grid reads everywhere.
 * Only the tables' own lines change, so everything else (an unclosed fence of a half-written answer included) stays
 * byte for byte what it was.
 */
export function renderTablesInMarkdown(safe: string): string {
  const parts = parseParts(safe);
  if (!parts.some((part) => part.kind === 'table')) return safe;
  let out = '';
  let at = 0;
  for (const part of parts) {
    if (part.kind === 'fence') {
      out += safe.slice(at, part.fence.end);
      at = part.fence.end;
    } else if (part.kind === 'table') {
      const source = [part.header, part.delimiter, ...part.rows].join('\n');
      const start = safe.indexOf(source, at);
      if (start < 0) continue; // cannot happen: the parts are lines of this text, in order
      out += safe.slice(at, start) + renderTableAsCode(part.header, part.rows, 'markdown');
      at = start + source.length;
    }
  }
  return out + safe.slice(at);
}
