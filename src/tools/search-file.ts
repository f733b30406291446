/**
 * search_file(id, query, queries): the passages of a large file (or of every file, id "*") that best match a query,
 * each with its location, so the model can cite "report.pdf, p. 37" and peek_file around a hit instead of loading
 * the file. Several phrasings in one call (the person's words, the document's words, a translation into the
 * document's language) are searched together and fused: a question asked in English about a German textbook finds
 * its page once the German words are among them.
 */
import { z } from 'zod';
import { formatCount } from '../core/format';
import { frameFileData, quoteName } from './frame-file-data';
import { progressName } from './progress-name';
import type { Tool, ToolContext } from './tool';
import type { SearchHit } from '../search/search-hit';

interface SearchFileOptions {
  /** Passages returned for one file; every file ("*") gets a few more. Default 5. */
  limit?: number;
  /** Characters of each passage shown around its matches. Default 700; less when the context is nearly full. */
  snippetChars?: number;
}

/** Phrasings per call: a few cover the person's words, the document's words and a translation. */
const MAX_PHRASINGS = 5;

const parameters = z.object({
  id: z.string().optional().describe('File id from the files list ("F1", or "F1.txt"); "*" or omitted searches every file of the thread.'),
  query: z.string().describe('What to look for: the question as asked, or names, numbers, key terms.'),
  queries: z
    .array(z.string())
    .max(MAX_PHRASINGS - 1)
    .optional()
    .describe(
      "More phrasings searched together with query and fused: the same question in the document's language (a German file needs German words), the terms the document would use, synonyms. Up to 4.",
    ),
});

function createSearchFileTool(options: SearchFileOptions = {}): Tool<z.infer<typeof parameters>> {
  const limit = options.limit ?? 5;
  const snippetChars = options.snippetChars ?? 700;
  return {
    name: 'search_file',
    description: [
      'Finds the passages of a file that best match a query, best first, without loading the file. id "*" (or no id)',
      'searches every file of the thread. Matching is by words in any inflection (and Chinese/Japanese by characters),',
      'not by meaning, so a question in another language than the document finds little: put the question as asked in',
      "query and, in queries, the same question in the document's language and the terms the document would use (e.g.",
      'query "total liabilities at the end of March", queries ["负债合计 期末余额"] for a Chinese report); results name',
      'the language of the passages found. Each hit gives the file, its page (and the printed page number where it',
      'differs), character offsets, why it matched, and an excerpt in <file_data> tags with the matched words marked',
      '«like this». Read around a hit with peek_file(id, start, stop) using its offsets, and cite hits by file and',
      'location, e.g. (report.pdf, p. 37).',
    ].join(' '),
    parameters,
    describeProgress: ({ id, query }, context) => {
      const target = !id || id.trim() === '*' ? 'all files' : progressName(context.files, id);
      return `searching ${target} for ${quoteQuery(query)}…`;
    },

    async execute({ id, query, queries }, context) {
      const phrasings = [...new Set([query, ...(queries ?? [])].map((q) => q.trim()).filter(Boolean))];
      const wanted = phrasings[0] ?? '';
      if (!wanted) {
        throw new Error('search_file needs a query: a few words or a short question to look for, e.g. search_file("F1", "termination notice period").');
      }
      const all = !id || id.trim() === '*';
      const file = all ? undefined : context.files.get(id!);
      const hits = await context.files.search(file?.id ?? '*', phrasings.length > 1 ? phrasings : wanted, all ? limit + 3 : limit, {
        signal: context.signal,
        snippetChars: snippetFor(context, snippetChars),
      });
      context.recordActivity(`searched ${file?.id ?? 'all files'} for ${quoteQuery(wanted)}`);
      const scope = file ? `${file.id} ${quoteName(file.name)}` : 'the files of this thread';
      const asked = phrasings.length > 1 ? phrasings.map((p) => JSON.stringify(p)).join(' + ') : JSON.stringify(wanted);
      if (hits.length === 0) {
        return [
          `No passage of ${scope} matches ${asked}.`,
          'Try other words: synonyms, the terms the document itself would use, its language (a German file needs German',
          'words), names or numbers that appear in it; or page through it with peek_file.',
        ].join(' ');
      }
      return renderHits(hits, asked, scope);
    },
  };
}

export const searchFileTool = createSearchFileTool();

function renderHits(hits: SearchHit[], asked: string, scope: string): string {
  const first = hits[0]!;
  const around = `peek_file(${JSON.stringify(first.fileId)}, ${Math.max(0, first.start - 1_000)}, ${first.end + 1_000})`;
  const lines = [
    `${hits.length} passage${hits.length === 1 ? '' : 's'} of ${scope} for ${asked}, best first.`,
    `Read around a hit with peek_file and its offsets (e.g. ${around}); cite as (${first.fileName}, ${first.location}).`,
  ];
  const languages = describeLanguages(hits);
  if (languages) {
    lines.push(`${languages} If these passages miss, search again with queries in that language, in the document's own terms.`);
  }
  hits.forEach((hit, i) => {
    const reason = hit.reason ? ` — matched: ${hit.reason}` : '';
    lines.push(
      `[${i + 1}] ${hit.fileId} ${quoteName(hit.fileName)}, ${hit.location}, chars ${formatCount(hit.start)}–${formatCount(hit.end)}${reason}`,
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

/** "F1 is in German." — each file's language, by the language most of its passages are in. */
function describeLanguages(hits: SearchHit[]): string {
  const votes = new Map<string, Map<string, number>>();
  for (const hit of hits) {
    if (!hit.language) continue;
    const counts = votes.get(hit.fileId) ?? new Map<string, number>();
    counts.set(hit.language, (counts.get(hit.language) ?? 0) + 1);
    votes.set(hit.fileId, counts);
  }
  const parts = [...votes].map(([fileId, counts]) => `${fileId} is in ${[...counts].sort((a, b) => b[1] - a[1])[0]![0]}`);
  return parts.length ? `${parts.join(', ')}.` : '';
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
