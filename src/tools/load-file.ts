/**
 * load_file(id): a whole file into the conversation — its text, or for an image, the picture on the next message.
 * Refused, with the better tool named, when the text would not fit the context that is left.
 */
import { z } from 'zod';
import { isImageFile } from '../core/file-kinds';
import { formatCount } from '../core/format';
import { frameFileData, quoteName } from './frame-file-data';
import { progressName } from './progress-name';
import { describePageCount, describeTextRange } from './text-range';
import type { ThreadFile } from '../core/thread-file';
import type { Tool } from './tool';

export interface LoadFileOptions {
  /** Most characters one load returns, whatever the context has free. Default 100,000 (about 25,000 tokens). */
  maxChars?: number;
  /** Tokens kept free after the load, for the answer. Default 2,000. */
  reserveTokens?: number;
  /** Token counter; default characters ÷ 4, which is close for English and generous for code. */
  countTokens?: (text: string) => number;
}

const parameters = z.object({
  id: z.string().min(1).describe('File id from the files list, e.g. "F1", or a virtual file like "F1.txt".'),
});

export function createLoadFileTool(options: LoadFileOptions = {}): Tool<z.infer<typeof parameters>> {
  const maxChars = options.maxChars ?? 100_000;
  const reserve = options.reserveTokens ?? 2_000;
  const countTokens = options.countTokens ?? ((text: string) => Math.ceil(text.length / 4));

  return {
    name: 'load_file',
    description: [
      "Loads a whole file of this thread into the conversation. Text files and extracted documents come back as the file's",
      'full text inside <file_data id="…" name="…"> tags, after one line with its size and pages. For an image, the picture',
      'is attached to the next message and the result says so. If the text would not fit the context left, nothing is',
      'loaded and the result says how large it is and which tool to use instead (peek_file for a slice, search_file for',
      'passages, extract_file for an outline). Prefer peek_file or search_file for large files.',
    ].join(' '),
    parameters,
    describeProgress: ({ id }, context) => {
      const image = context.files.list().some((f) => f.id === id && isImageFile(f) && !f.sourceId);
      return `${image ? 'looking at' : 'reading'} ${progressName(context.files, id)}…`;
    },

    async execute({ id }, context) {
      const file = context.files.get(id);
      if (isImageFile(file) && !file.sourceId) {
        const image = await context.files.readImage(file.id, context.signal);
        context.showImage({ fileId: file.id, name: file.name, dataUrl: image.dataUrl });
        context.recordActivity(`${file.id} (image)`);
        const size = image.width && image.height ? `, ${image.width}×${image.height} px` : '';
        return `Image ${file.id} ${quoteName(file.name)}${size} is attached to the next message; look at it there.`;
      }

      const document = await context.files.readText(file.id, context.signal);
      const { text } = document;
      const tokens = countTokens(text);
      const free = context.tokensLeft() - reserve;
      const pages = describePageCount(document);
      if (text.length > maxChars || tokens > free) {
        return refusal(file, text.length, tokens, Math.max(0, free), text.length > maxChars ? maxChars : undefined);
      }

      const range = describeTextRange(document, 0, text.length);
      context.recordActivity(range && document.segments.length > 1 ? `${file.id} ${range}` : `${file.id} (whole)`);
      const notes = document.notes.length ? `\nNotes on the text: ${document.notes.join('; ')}` : '';
      return [
        `${file.id} ${quoteName(file.name)}: the whole file, ${formatCount(text.length)} characters${pages ? `, ${pages}` : ''}.${notes}`,
        frameFileData({ file, content: text }),
      ].join('\n');
    },
  };
}

export const loadFileTool = createLoadFileTool();

function refusal(file: ThreadFile, chars: number, tokens: number, free: number, cap?: number): string {
  const why = cap
    ? `more than the ${formatCount(cap)} characters load_file returns at once`
    : `more than fits in the context left (about ${formatCount(free)} tokens free)`;
  const id = JSON.stringify(file.id);
  const ways = [
    `peek_file(${id}, 0, 8000) reads a slice and tells you how to page on`,
    `search_file(${id}, "<your question>") finds the passages that matter`,
  ];
  if (!file.sourceId) ways.push(`extract_file(${id}) gives its outline and a preview`);
  return `Not loaded: ${file.id} ${quoteName(file.name)} is ${formatCount(chars)} characters (about ${formatCount(tokens)} tokens), ${why}. Instead, ${ways.join('; ')}.`;
}
