import { displayWidth } from './display-width';
import { escapeMrkdwn, unescapeMrkdwn } from './escape-mrkdwn';
import { findCodeSpans } from './find-code-spans';
import { neutraliseMentions } from './neutralise-mentions';

/**
 * A markdown table as an aligned code block: mrkdwn has no tables, and Slack's markdown block shows them unreliably
 * (the project's slack skill says so), so a monospaced grid is the one layout that still reads as a table. Cell
 * formatting is reduced to plain text; a link keeps its URL in parentheses.
 * Input cells are neutralised markdown (entities outside code spans). The output is mrkdwn (code escaped in full,
 * as mrkdwn wants) or, for a markdown block, a fence holding the text as the reader sees it.
 */
export function renderTableAsCode(header: string, rows: readonly string[], target: 'mrkdwn' | 'markdown' = 'mrkdwn'): string {
  const grid = [header, ...rows].map(splitRow).map((cells) => cells.map(toPlainCell));
  const columns = Math.max(...grid.map((cells) => cells.length));
  const widths = Array.from({ length: columns }, (_, c) => Math.max(1, ...grid.map((cells) => displayWidth(cells[c] ?? ''))));
  const line = (cells: string[]) => widths.map((w, c) => pad(cells[c] ?? '', w)).join(' | ').trimEnd();
  const [head = [], ...body] = grid;
  const text = [line(head), widths.map((w) => '-'.repeat(w)).join('-+-'), ...body.map(line)].join('\n');
  if (target === 'mrkdwn') return '```\n' + escapeMrkdwn(text) + '\n```';
  // Unescaping the cells may have spelt a Slack token again (`&lt;!here&gt;` → `<!here>`); inside code the neutraliser
  // defuses only real tokens, so the grid stays as it is.
  return neutraliseMentions('```\n' + text + '\n```');
}

/** `| a | b |` → ["a", "b"]; an escaped `\|`, or a pipe inside a code span, stays inside its cell. */
function splitRow(row: string): string[] {
  const trimmed = row.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '');
  const code = findCodeSpans(trimmed);
  const cells: string[] = [];
  let cellStart = 0;
  for (let i = 0; i < trimmed.length; i++) {
    if (trimmed[i] !== '|' || trimmed[i - 1] === '\\' || code.some(([s, e]) => s < i && i < e)) continue;
    cells.push(trimmed.slice(cellStart, i));
    cellStart = i + 1;
  }
  cells.push(trimmed.slice(cellStart));
  return cells.map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

function toPlainCell(cell: string): string {
  let plain = '';
  let at = 0;
  for (const [start, end] of findCodeSpans(cell)) {
    plain += toPlainProse(cell.slice(at, start)) + cell.slice(start, end).replace(/^`+ ?| ?`+$/g, '');
    at = end;
  }
  return plain + toPlainProse(cell.slice(at));
}

function toPlainProse(text: string): string {
  const plain = text
    .replace(/!?\[([^\]]*)\]\(\s*([^\s)]+)[^)]*\)/g, (_m, label: string, url: string) => (label && label !== url ? `${label} (${url})` : url))
    .replace(/<((?:https?|mailto|tel|ftp|slack):[^|>]+)\|([^>]*)>/g, '$2 ($1)')
    .replace(/<((?:https?|mailto|tel|ftp|slack):[^|>]+)>/g, '$1')
    .replace(/(\*\*|__|~~)(?=\S)(.{0,1000}?\S)\1/g, '$2')
    .replace(/(?<![\p{L}\p{N}*_])([*_])(?=[^\s*_])(.{0,1000}?[^\s*_])\1(?![\p{L}\p{N}*_])/gu, '$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!~|])/g, '$1');
  return unescapeMrkdwn(plain);
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}
