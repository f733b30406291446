/**
 * attach_file(id, format): uploads a file into the thread so people can download it: a query result as CSV (the
 * default, as DESIGN.md's `attach_file(id)`) or as an XLSX workbook, or another thread file (an extracted text, a
 * generated file) as it is.
 */
import { z } from 'zod';
import { formatBytes, formatCount } from '../core/format';
import { resultToCsv } from '../tables/result-csv';
import { RESULT_MIME_TYPES, resultFileName, type StoredResult } from '../tables/result-store';
import { ThreadwiseError } from '../core/errors';
import type { Tool } from './tool';
import type { ResolveTableToolDeps, TableToolDeps } from './table-tools-context';

const parameters = z.object({
  id: z.string().min(1).describe('A result id from query_table ("F2.q1"), or a file id of the thread such as an extracted text ("F1.txt").'),
  format: z
    .enum(['csv', 'xlsx'])
    .optional()
    .describe('For a query result: "csv" (the default) or "xlsx" (an Excel workbook with typed cells). Other files are attached as they are.'),
});

export function createAttachFileTool(resolve: ResolveTableToolDeps): Tool<z.infer<typeof parameters>> {
  return {
    name: 'attach_file',
    description: [
      'Uploads a file into the thread for people to download: a query_table result as CSV (pass its id, e.g. "F2.q1"),',
      'or as an Excel workbook with format "xlsx" (numbers and dates as typed cells; use it when someone asks for Excel or a spreadsheet),',
      'or a file of the thread such as an extracted text ("F1.txt").',
      'Returns one line with the uploaded file\'s name and size, and whether a result was cut to the rows kept.',
    ].join(' '),
    parameters,
    describeProgress: ({ id, format }) => `attaching ${id}${format === 'xlsx' ? ' as XLSX' : ''}…`,

    async execute({ id, format }, context) {
      const deps = resolve(context);
      const result = await deps.results.get(id);
      if (result) {
        const file = await resultFile(result, format ?? 'csv', deps);
        const posted = await deps.output.attachFile({ ...file, title: file.name });
        context.recordActivity(`attached ${id}`);
        const cut = result.truncated
          ? ` It holds the ${formatCount(result.rows.length)} rows kept of ${result.totalRowsExact ? '' : 'more than '}${formatCount(result.totalRows)}; narrow the query to attach everything.`
          : '';
        return `Attached ${file.name} (${formatCount(result.rows.length)} rows, ${formatBytes(file.bytes.byteLength)}) to the thread${placeOf(posted)}.${cut}`;
      }
      if (!deps.files) {
        throw new ThreadwiseError('unknown_result', `${JSON.stringify(id)} is not a query result of this thread; attach_file takes the id query_table returned (like "F2.q1").`, { context: { id } });
      }
      if (format === 'xlsx') {
        throw new ThreadwiseError(
          'xlsx_needs_result',
          `${JSON.stringify(id)} is not a query result, and only results can be made into a workbook: query it with query_table first and attach that result with format "xlsx", or attach ${id} as it is (no format).`,
          { context: { id } },
        );
      }
      const file = await deps.files.read(id, context.signal);
      const posted = await deps.output.attachFile({ name: file.name, bytes: file.bytes, mimeType: file.mimeType, title: file.name });
      context.recordActivity(`attached ${id}`);
      return `Attached ${file.name} (${formatBytes(file.bytes.byteLength)}) to the thread${placeOf(posted)}.`;
    },
  };
}

/** The result's file as attached: its CSV ("sales.q1.csv"), or a workbook of the same name ("sales.q1.xlsx"). */
async function resultFile(result: StoredResult, format: 'csv' | 'xlsx', deps: TableToolDeps): Promise<{ name: string; bytes: Uint8Array; mimeType: string }> {
  if (format === 'csv') return { name: result.name, bytes: new TextEncoder().encode(resultToCsv(result)), mimeType: RESULT_MIME_TYPES.csv };
  const name = resultFileName(result.name, 'xlsx');
  return { name, bytes: await deps.tables.writeXlsx(result, name.replace(/\.xlsx$/, '')), mimeType: RESULT_MIME_TYPES.xlsx };
}

/** Where the file went, for the model and the run's record: the written path, or Slack's file id. */
function placeOf(posted: { fileId?: string; location?: string }): string {
  if (posted.location) return ` (${posted.location})`;
  return posted.fileId ? ` (Slack file ${posted.fileId})` : '';
}
