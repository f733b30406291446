import { findFences, type Fence } from './find-fences';

/**
 * Markdown as a sequence of parts that are cut differently: prose anywhere between words, a code fence only between
 * lines (and then closed and reopened), a table only between rows (and then with its header repeated).
 */
export type Part = (
  | { kind: 'prose'; text: string }
  | { kind: 'fence'; fence: Fence }
  | { kind: 'table'; header: string; delimiter: string; rows: string[] }
) & {
  /** Whether a blank line separated this part from the one before: paragraphs stay paragraphs when re-joined. */
  blankBefore: boolean;
};

/** `text` must already use "\n" line breaks. Blank lines at the edges of parts are dropped. */
export function parseParts(text: string): Part[] {
  const parts: Part[] = [];
  let blank = false;
  let prose: string[] = [];
  const flushProse = () => {
    let trailingBlank = false;
    while (prose.length > 0 && isBlank(prose.at(-1)!)) {
      prose.pop();
      trailingBlank = true;
    }
    if (prose.length > 0) {
      parts.push({ kind: 'prose', text: prose.join('\n'), blankBefore: blank });
      blank = false;
    }
    blank ||= trailingBlank;
    prose = [];
  };
  const readLines = (lines: string[]) => {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (isTableStart(lines, i)) {
        flushProse();
        const rows: string[] = [];
        let j = i + 2;
        while (j < lines.length && !isBlank(lines[j]!) && lines[j]!.includes('|')) rows.push(lines[j++]!);
        parts.push({ kind: 'table', header: line, delimiter: lines[i + 1]!, rows, blankBefore: blank });
        blank = false;
        i = j - 1;
      } else if (isBlank(line) && prose.length === 0) {
        blank = true;
      } else {
        prose.push(line);
      }
    }
  };

  let at = 0;
  for (const fence of findFences(text)) {
    readLines(linesBetween(text, at, fence.start));
    flushProse();
    parts.push({ kind: 'fence', fence, blankBefore: blank });
    blank = false;
    at = fence.end;
  }
  readLines(linesBetween(text, at, text.length));
  flushProse();
  return parts;
}

/** The lines strictly between two offsets, without the line breaks that belong to the fences around them. */
function linesBetween(text: string, from: number, to: number): string[] {
  let gap = text.slice(from, to);
  if (from > 0 && gap.startsWith('\n')) gap = gap.slice(1);
  if (gap === '') return [];
  // What is left ends with the line break before the next fence; an empty line in between (two fences a blank line
  // apart) is still a line, so the blank survives the round trip.
  if (to < text.length && gap.endsWith('\n')) gap = gap.slice(0, -1);
  return gap.split('\n');
}

function isTableStart(lines: string[], i: number): boolean {
  const header = lines[i]!;
  const delimiter = lines[i + 1];
  return header.includes('|') && delimiter !== undefined && isTableDelimiter(delimiter);
}

/** `|---|:--:|` or `--- | ---`: only pipes, colons, dashes and spaces, with at least one pipe and one dash. */
function isTableDelimiter(line: string): boolean {
  return /^[\s|:-]+$/.test(line) && line.includes('|') && line.includes('-');
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** A part as markdown text again; an unclosed fence comes back closed. */
export function renderPart(part: Part): string {
  switch (part.kind) {
    case 'prose':
      return part.text;
    case 'fence':
      return renderFence(part.fence, part.fence.body);
    case 'table':
      return [part.header, part.delimiter, ...part.rows].join('\n');
  }
}

export function renderFence(fence: Fence, body: string): string {
  const open = `${fence.indent}${fence.marker}${fence.info}`;
  const close = `${fence.indent}${fence.marker}`;
  return body === '' ? `${open}\n${close}` : `${open}\n${body}\n${close}`;
}
