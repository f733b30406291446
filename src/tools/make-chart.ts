/**
 * make_chart(id, spec): draws a Vega-Lite spec over a query result and posts the chart into the thread, as Slack's
 * own chart block when the thread output can post blocks and the chart fits its limits, otherwise as a PNG.
 */
import { z } from 'zod';
import { chartFileName, chartTitle, specObjectOf } from '../charts/chart-title';
import { toChartBlock } from '../charts/slack-chart-block';
import { CODE_TABLE_MAX_ROWS, fitsTableBlock, toCodeBlockTable, toTableBlock } from '../charts/slack-table';
import { formatCount } from '../core/format';
import { getResultOrExplain } from './result-lookup';
import type { Tool } from './tool';
import type { ResolveTableToolDeps } from './table-tools-context';

const parameters = z.object({
  id: z.string().min(1).describe('A result id from query_table, e.g. "F2.q1".'),
  spec: z
    .union([z.record(z.string(), z.unknown()), z.string()])
    .describe('A Vega-Lite spec (object) without data: the result\'s rows are its data and its column names are the fields.'),
});

export function createMakeChartTool(resolve: ResolveTableToolDeps): Tool<z.infer<typeof parameters>> {
  return {
    name: 'make_chart',
    description: [
      'Draws a chart of a query_table result and posts it into the thread. spec is a Vega-Lite spec without "data" (the result\'s rows are the data; its column names are the fields),',
      'e.g. {"mark": "bar", "title": "Revenue by region", "encoding": {"x": {"field": "region", "type": "nominal", "sort": "-y"}, "y": {"field": "total", "type": "quantitative"}}}.',
      'Marks: bar, line, area, point, arc (pie: theta + color), rect, rule, text, tick, boxplot. Aggregate with query_table first; a chart draws at most 5,000 rows.',
      `To show a result of up to ${CODE_TABLE_MAX_ROWS} rows as a table people can read (instead of a paragraph of numbers), pass the spec {"mark": "table"}: it is posted as Slack's table block, or returned as an aligned table to put in your answer as it is.`,
      'Returns one line saying what was posted (a PNG image, or Slack\'s chart block for a simple chart), or what was wrong with the spec and the result\'s fields.',
    ].join(' '),
    parameters,
    describeProgress: ({ id }) => `drawing a chart of ${id}…`,

    async execute({ id, spec }, context) {
      const deps = resolve(context);
      const result = await getResultOrExplain(deps.results, id, 'make_chart');
      const specObject = specObjectOf(spec);
      const title = chartTitle(specObject, result.name);

      if (specObject?.mark === 'table') {
        const table = { columns: result.columns, rows: result.rows };
        if (deps.output.postBlocks && fitsTableBlock(table)) {
          await deps.output.postBlocks({ blocks: [toTableBlock(table)], text: title });
          context.recordActivity(`table of ${id}`);
          return `Posted ${id} into the thread as a table (${formatCount(result.rows.length)} rows); do not repeat its rows in your answer.`;
        }
        context.recordActivity(`table of ${id}`);
        return [
          `Tables cannot be posted here${deps.output.postBlocks ? ` (${id} is larger than a table block holds)` : ''}: put this aligned table in your answer as it is, fences included.`,
          toCodeBlockTable(table, { totalRows: result.totalRows }),
        ].join('\n');
      }

      const block = specObject && deps.output.postBlocks ? toChartBlock(specObject, result, title) : undefined;
      if (block && deps.output.postBlocks) {
        await deps.output.postBlocks({ blocks: [block], text: title });
        context.recordActivity(`chart of ${id}`);
        return `Posted "${title}" into the thread as Slack's chart block (${formatCount(result.rows.length)} rows of ${id}).`;
      }

      const chart = await deps.charts.render(spec, result, { context: { resultId: id } });
      const name = chartFileName(result.name);
      const posted = await deps.output.postImage({ name, png: chart.png, altText: `${title}: chart of ${result.name}`, title });
      context.recordActivity(`chart of ${id}`);
      const where = posted.location ? ` (${posted.location})` : posted.fileId ? ` (Slack file ${posted.fileId})` : '';
      const cut = result.truncated ? ` It draws the ${formatCount(result.rows.length)} rows kept of ${id}, not all ${formatCount(result.totalRows)}.` : '';
      return `Posted the chart "${title}" into the thread as ${name}, ${chart.width}×${chart.height} px${where}.${cut}`;
    },
  };
}
