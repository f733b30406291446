/**
 * peek_file(id, start, stop): a slice of a file's text by character offsets, with the total length and the call
 * for the next slice, so the model can page through a file far larger than its context.
 */
import { z } from 'zod';
import { formatCount } from '../core/format';
import { frameFileData, quoteName } from './frame-file-data';
import { progressName } from './progress-name';
import { describeTextRange } from './text-range';
import type { Tool } from './tool';
import { describeIfTable } from './table-summary';

/** Most characters per peek (about 5,000 tokens): big enough to read a section, small enough to page. */
const MAX_PEEK_CHARS = 20_000;

const parameters = z.object({
  id: z.string().min(1).describe('File id from the files list, e.g. "F1", or a virtual file like "F1.txt".'),
  start: z.number().int().describe('First character to return, counted from 0.'),
  stop: z.number().int().describe(`Character to stop before (exclusive). At most ${formatCount(MAX_PEEK_CHARS)} characters after start.`),
});

function createPeekFileTool(options: { maxChars?: number } = {}): Tool<z.infer<typeof parameters>> {
  const maxChars = options.maxChars ?? MAX_PEEK_CHARS;
  return {
    name: 'peek_file',
    description: [
      "Returns characters start..stop (stop exclusive) of a file's text, for paging through files too large to load whole.",
      `At most ${formatCount(maxChars)} characters per call; a longer range is shortened.`,
      'The result starts with one line giving the range, the total length, the pages or sections it covers, and the',
      'call for the next slice, then the text inside <file_data id="…" name="…" chars="start-stop"> tags.',
      'PDFs, DOCX and other documents are read through their extracted text. Example: peek_file("F1", 0, 8000).',
    ].join(' '),
    parameters,
    describeProgress: ({ id, start, stop }, context) =>
      `peeking at ${progressName(context.files, id)} (chars ${formatCount(start)}–${formatCount(stop)})…`,

    async execute({ id, start, stop }, context) {
      const file = context.files.get(id);
      const document = await context.files.readText(file.id, context.signal);
      const total = document.text.length;
      const call = (from: number, to: number) => `peek_file(${JSON.stringify(file.id)}, ${from}, ${to})`;
      const example = call(0, Math.min(total, 8_000));
      if (start < 0 || stop < 0) {
        throw new Error(`start and stop must be 0 or more (got ${start} and ${stop}); ${file.id} has ${formatCount(total)} characters. Try ${example}.`);
      }
      if (stop <= start) {
        throw new Error(`stop must be greater than start (got start ${start}, stop ${stop}). Try ${call(start, Math.min(total, start + 8_000))}.`);
      }
      if (start >= total) {
        throw new Error(`start ${formatCount(start)} is past the end: ${file.id} has ${formatCount(total)} characters. Try ${example}.`);
      }

      const end = Math.min(stop, total, start + maxChars);
      const shortened = end < Math.min(stop, total) ? ` (shortened to ${formatCount(maxChars)} characters per peek)` : '';
      const where = describeTextRange(document, start, end);
      const next = end < total ? `next: ${call(end, Math.min(total, end + (end - start)))}` : 'this is the end of the file';
      context.recordActivity(where ? `${file.id} ${where}` : `${file.id} chars ${formatCount(start)}–${formatCount(end)}`);
      // The head of a table: say what query_table can ask of it (once, not on every page).
      const table = start === 0 ? await describeIfTable(file, context) : undefined;
      return [
        `${file.id} ${quoteName(file.name)}: characters ${formatCount(start)}–${formatCount(end)} of ${formatCount(total)}${where ? ` (${where})` : ''}${shortened}; ${next}.`,
        ...(table ? [table] : []),
        frameFileData({ file, content: document.text.slice(start, end), attributes: { chars: `${start}-${end}` } }),
      ].join('\n');
    },
  };
}

export const peekFileTool = createPeekFileTool();
