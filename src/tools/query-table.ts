/**
 * query_table(id, sql): exact answers from a thread's CSV, TSV, XLSX, Parquet or JSON file with read-only SQL
 * (DuckDB's dialect). The rows come back to the model as an aligned table (capped), with the total count and a
 * result id that make_chart and attach_file take.
 */
import { z } from 'zod';
import { toCodeBlockTable } from '../charts/slack-table';
import { formatCount } from '../core/format';
import type { StoredResult } from '../tables/result-store';
import type { TableResult } from '../tables/types';
import { frameFileData } from './frame-file-data';
import { progressName } from './progress-name';
import type { Tool } from './tool';
import type { ResolveTableToolDeps } from './table-tools-context';

/** Rows shown to the model per result (the whole result, up to the engine's cap, stays addressable by its id). */
const MODEL_ROWS = 200;
/** Characters of rows shown to the model: fewer rows are shown when they are wide. */
const MODEL_CHARS = 12_000;

const parameters = z.object({
  id: z.string().min(1).describe('File id of a CSV, TSV, XLSX, Parquet or JSON file from the files list, e.g. "F2".'),
  sql: z.string().min(1).describe('One read-only SELECT in DuckDB SQL over the table data (a workbook\'s sheets also by name, in double quotes).'),
});

export function createQueryTableTool(resolve: ResolveTableToolDeps): Tool<z.infer<typeof parameters>> {
  return {
    name: 'query_table',
    description: [
      "Runs one read-only SQL query (DuckDB's dialect) over a tabular file of the thread (CSV, TSV, XLSX, Parquet, JSON) and returns exact results: use it for sums, counts, averages, top-N, filters and comparisons instead of reading rows.",
      'The file is the table data; a workbook\'s sheets are also tables by their names (quote names with spaces: SELECT * FROM "Q3 Sales").',
      'Column names with spaces or capitals need double quotes too. Only a single SELECT (WITH …, FROM-first and UNION included) is allowed; nothing outside the file can be read or written.',
      `The result starts with a line giving its id (e.g. "F2.q1"), its row and column count, then up to ${MODEL_ROWS} rows as an aligned table inside <file_data>; a note says when rows were left out and why.`,
      'Pass the result id to make_chart to draw it or to attach_file to upload it as CSV (or as an Excel workbook with format "xlsx"). A failing query returns DuckDB\'s error and the tables and columns that exist; fix the query and try again.',
      'Example: query_table("F2", "SELECT region, sum(amount) AS total FROM data GROUP BY region ORDER BY total DESC").',
    ].join(' '),
    parameters,
    describeProgress: ({ id }, context) => `querying ${progressName(context.files, id)}…`,

    async execute({ id, sql }, context) {
      const deps = resolve(context);
      const { file, result } = await deps.tables.query(id, sql, context.signal);
      const stored = await deps.results.save({
        sourceFileId: id,
        sourceFileName: file.name,
        sql,
        columns: result.columns,
        rows: result.rows,
        totalRows: result.totalRows,
        totalRowsExact: result.totalRowsExact,
        truncated: result.truncated,
      });
      context.recordActivity(`${id} query → ${stored.id}`);
      return formatQueryResult(stored, result);
    },
  };
}

/** The tool's text for a result: summary line, notes, the rows framed as data, and what to do next. */
function formatQueryResult(stored: StoredResult, result: TableResult): string {
  const shown = rowsThatFit(stored);
  const total = result.totalRowsExact ? formatCount(result.totalRows) : `more than ${formatCount(result.totalRows)}`;
  const lines = [
    `Result ${stored.id} (${JSON.stringify(stored.name)}): ${total} row${result.totalRows === 1 ? '' : 's'} × ${result.columns.length} column${result.columns.length === 1 ? '' : 's'} (${result.columns.map((c) => `${c.name} ${c.type}`).join(', ')}), in ${result.elapsedMs} ms.`,
  ];
  if (result.limitNote) lines.push(result.limitNote);
  if (shown < stored.rows.length) lines.push(`Showing the first ${formatCount(shown)} of the ${formatCount(stored.rows.length)} rows kept; all of them are in ${stored.id}.`);
  if (stored.rows.length === 0) lines.push('The query returned no rows.');
  else lines.push(frameFileData({ file: { id: stored.id, name: stored.name }, content: stripFence(toCodeBlockTable({ columns: stored.columns, rows: stored.rows.slice(0, shown) }, { maxRows: shown })) }));
  lines.push(`Next: make_chart(${JSON.stringify(stored.id)}, spec) draws it; attach_file(${JSON.stringify(stored.id)}) uploads it as CSV (format "xlsx": an Excel workbook).`);
  return lines.join('\n');
}

/** As many rows (up to MODEL_ROWS) as fit MODEL_CHARS, measured on the rendered table. */
function rowsThatFit(stored: StoredResult): number {
  let rows = Math.min(MODEL_ROWS, stored.rows.length);
  while (rows > 1 && toCodeBlockTable({ columns: stored.columns, rows: stored.rows.slice(0, rows) }, { maxRows: rows }).length > MODEL_CHARS) {
    rows = Math.floor(rows / 2);
  }
  return rows;
}

function stripFence(table: string): string {
  return table.replace(/^```\n/, '').replace(/\n```$/, '');
}
