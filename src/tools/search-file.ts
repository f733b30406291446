/**
 * search_file(id, query): the passages of a large file (or of every file, id "*") that best match a query, each
 * with its location, so the model can cite "report.pdf, p. 37" and peek_file around a hit instead of loading the file.
 */
import { z } from 'zod';
import { formatCount } from '../core/format';
import { frameFileData, quoteName } from './frame-file-data';
import { progressName } from './progress-name';
import type { SearchHit, Tool, ToolContext } from './tool';

export interface SearchFileOptions {
  /** Passages returned for one file; every file ("*") gets a few more. Default 5. */
  limit?: number;
  /** Characters of each passage shown around its matches. Default 700; less when the context is nearly full. */
  snippetChars?: number;
}

const parameters = z.object({
  id: z.string().optional().describe('File id from the files list ("F1", or "F1.txt"); "*" or omitted searches every file of the thread.'),
  query: z.string().describe('Words to look for, in the language of the file: names, numbers, key terms, or a short question.'),
});

export function createSearchFileTool(options: SearchFileOptions = {}): Tool<z.infer<typeof parameters>> {
  const limit = options.limit ?? 5;
  const snippetChars = options.snippetChars ?? 700;
  return {
    name: 'search_file',
    description: [
      'Finds the passages of a file that best match a query, best first, without loading the file. id "*" (or no id)',
      'searches every file of the thread. Matching is by words in any inflection (and Chinese/Japanese by characters), so',
      'use the terms the document itself would use, in its language; a short question works too. Each hit gives the',
      'file, its location (page, section, sheet rows or lines), character offsets and an excerpt in <file_data> tags',
      'with the matched words marked «like this». Read around a hit with peek_file(id, start, stop) using its offsets,',
      'and cite hits by file and location, e.g. (report.pdf, p. 37).',
    ].join(' '),
    parameters,
    describeProgress: ({ id, query }, context) => {
      const target = !id || id.trim() === '*' ? 'all files' : progressName(context.files, id);
      return `searching ${target} for ${quoteQuery(query)}…`;
    },

    async execute({ id, query }, context) {
      const wanted = query.trim();
      if (!wanted) {
        throw new Error('search_file needs a query: a few words or a short question to look for, e.g. search_file("F1", "termination notice period").');
      }
      const all = !id || id.trim() === '*';
      const file = all ? undefined : context.files.get(id!);
      const hits = await context.files.search(file?.id ?? '*', wanted, all ? limit + 3 : limit, {
        signal: context.signal,
        snippetChars: snippetFor(context, snippetChars),
      });
      context.recordActivity(`searched ${file?.id ?? 'all files'} for ${quoteQuery(wanted)}`);
      const scope = file ? `${file.id} ${quoteName(file.name)}` : 'the files of this thread';
      if (hits.length === 0) {
        return [
          `No passage of ${scope} matches ${JSON.stringify(wanted)}.`,
          'Try other words: synonyms, the terms the document itself would use, its language (a German file needs German',
          'words), names or numbers that appear in it; or page through it with peek_file.',
        ].join(' ');
      }
      return renderHits(hits, wanted, scope);
    },
  };
}

export const searchFileTool = createSearchFileTool();

function renderHits(hits: SearchHit[], query: string, scope: string): string {
  const first = hits[0]!;
  const around = `peek_file(${JSON.stringify(first.fileId)}, ${Math.max(0, first.start - 1_000)}, ${first.end + 1_000})`;
  const lines = [
    `${hits.length} passage${hits.length === 1 ? '' : 's'} of ${scope} for ${JSON.stringify(query)}, best first.`,
    `Read around a hit with peek_file and its offsets (e.g. ${around}); cite as (${first.fileName}, ${first.location}).`,
  ];
  hits.forEach((hit, i) => {
    lines.push(
      `[${i + 1}] ${hit.fileId} ${quoteName(hit.fileName)}, ${hit.location}, chars ${formatCount(hit.start)}–${formatCount(hit.end)}`,
      frameFileData({
        file: { id: hit.fileId, name: hit.fileName },
        content: hit.snippet,
        attributes: { location: hit.location, chars: `${hit.start}-${hit.end}` },
        withoutNotice: i > 0,
      }),
    );
  });
  return lines.join('\n');
}

/** Shorter excerpts when the context is nearly full: five hits must still fit. */
function snippetFor(context: ToolContext, preferred: number): number {
  const left = context.tokensLeft();
  if (left < 3_000) return Math.min(preferred, 240);
  if (left < 8_000) return Math.min(preferred, 400);
  return preferred;
}

function quoteQuery(query: string): string {
  const short = query.trim().replace(/\s+/g, ' ');
  return `'${short.length > 40 ? `${short.slice(0, 39)}…` : short}'`;
}
