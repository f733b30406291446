/**
 * attach_file(id): uploads a file into the thread so people can download it: a query result as CSV, or another
 * thread file (an extracted text, a generated file) as it is.
 */
import { z } from 'zod';
import { formatBytes, formatCount } from '../core/format';
import { resultToCsv } from '../tables/result-csv';
import { ThreadwiseError } from '../core/errors';
import type { Tool } from './tool';
import type { ResolveTableToolDeps } from './table-tools-context';

const parameters = z.object({
  id: z.string().min(1).describe('A result id from query_table ("F2.q1"), or a file id of the thread such as an extracted text ("F1.txt").'),
});

export function createAttachFileTool(resolve: ResolveTableToolDeps): Tool<z.infer<typeof parameters>> {
  return {
    name: 'attach_file',
    description: [
      'Uploads a file into the thread for people to download: a query_table result as CSV (pass its id, e.g. "F2.q1"), or a file of the thread such as an extracted text ("F1.txt").',
      'Returns one line with the uploaded file\'s name and size, and whether a result was cut to the rows kept.',
    ].join(' '),
    parameters,
    describeProgress: ({ id }) => `attaching ${id}…`,

    async execute({ id }, context) {
      const deps = resolve(context);
      const result = await deps.results.get(id);
      if (result) {
        const bytes = new TextEncoder().encode(resultToCsv(result));
        const posted = await deps.output.attachFile({ name: result.name, bytes, mimeType: 'text/csv', title: result.name });
        context.recordActivity(`attached ${id}`);
        const cut = result.truncated
          ? ` It holds the ${formatCount(result.rows.length)} rows kept of ${result.totalRowsExact ? '' : 'more than '}${formatCount(result.totalRows)}; narrow the query to attach everything.`
          : '';
        return `Attached ${result.name} (${formatCount(result.rows.length)} rows, ${formatBytes(bytes.byteLength)}) to the thread${placeOf(posted)}.${cut}`;
      }
      if (!deps.files) {
        throw new ThreadwiseError('unknown_result', `${JSON.stringify(id)} is not a query result of this thread; attach_file takes the id query_table returned (like "F2.q1").`, { context: { id } });
      }
      const file = await deps.files.read(id, context.signal);
      const posted = await deps.output.attachFile({ name: file.name, bytes: file.bytes, mimeType: file.mimeType, title: file.name });
      context.recordActivity(`attached ${id}`);
      return `Attached ${file.name} (${formatBytes(file.bytes.byteLength)}) to the thread${placeOf(posted)}.`;
    },
  };
}

/** Where the file went, for the model and the run's record: the written path, or Slack's file id. */
function placeOf(posted: { fileId?: string; location?: string }): string {
  if (posted.location) return ` (${posted.location})`;
  return posted.fileId ? ` (Slack file ${posted.fileId})` : '';
}
