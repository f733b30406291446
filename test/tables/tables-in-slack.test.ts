/**
 * Numbers, tables and charts in a Slack thread, end to end: the real app (startThreadwise) against the fake Slack
 * and the fake model over real HTTP. A generated CSV is shared in the thread (the fake Slack serves its bytes); the
 * scripted model calls query_table (the exact sums come back in the tool result), make_chart (a PNG goes up through
 * files.getUploadURLExternal → the upload URL → files.completeUploadExternal into the thread), a table (Slack's
 * table block in the thread) and attach_file (the result as CSV, the same way). The result is a file of the thread
 * afterwards: the next question's files list names it, and load_file reads it.
 */
import { describe, expect, it } from 'vitest';
import { toolResultsIn } from '../agent/loop-fixtures';
import { CHANNEL, useHarness } from '../support/harness';
import { buildSalesCsv, REGIONS } from './support/table-fixtures';

const h = useHarness();
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const QUERY = 'SELECT region, count(*) AS orders, sum(units) AS units FROM data GROUP BY region ORDER BY region';

describe('a CSV in a Slack thread', () => {
  it('is queried exactly, charted as a PNG, shown as a table and attached as a CSV, all into the thread', async () => {
    const sales = buildSalesCsv(20_000);
    const csv = h.slack.addFile({ name: 'sales.csv', mimetype: 'text/csv', filetype: 'csv', content: Buffer.from(sales.bytes) });
    h.model.enqueue(
      { toolCalls: [{ name: 'query_table', arguments: { id: 'F1', sql: QUERY } }] },
      {
        toolCalls: [
          {
            name: 'make_chart',
            arguments: {
              id: 'F1.q1',
              spec: { mark: 'point', title: 'Units by region', encoding: { x: { field: 'orders', type: 'quantitative' }, y: { field: 'units', type: 'quantitative' }, color: { field: 'region', type: 'nominal' } } },
            },
          },
        ],
      },
      { toolCalls: [{ name: 'make_chart', arguments: { id: 'F1.q1', spec: { mark: 'table', title: 'Units by region' } } }] },
      { toolCalls: [{ name: 'attach_file', arguments: { id: 'F1.q1' } }] },
      { text: 'North sold the most units; the chart and the CSV are in the thread.' },
    );

    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> units per region? chart it and give me the file`, files: [csv] });
    const answers = await h.answers(CHANNEL, ts, 1, 60_000);
    expect(answers.at(-1)).toContain('North sold the most units');

    // The model saw the file's columns and got exact numbers back.
    const queried = toolResultsIn(h.model.requests[1]!)[0]!;
    expect(queried).toContain('Result F1.q1 ("sales.q1.csv"): 5 rows × 3 columns');
    for (const region of REGIONS) {
      const { count, units } = sales.byRegion.get(region)!;
      expect(queried).toMatch(new RegExp(`${region}\\s+${count}\\s+${units}\\b`));
    }

    // Two uploads (the chart, then the CSV), each reserved, sent and shared into this channel and thread.
    const reserved = h.slack.callsTo('files.getUploadURLExternal');
    expect(reserved.map((call) => call.body.filename)).toEqual(['sales.q1.chart.png', 'sales.q1.csv']);
    const completed = h.slack.callsTo('files.completeUploadExternal');
    expect(completed).toHaveLength(2);
    for (const call of completed) {
      expect(call.outcome).toBe('ok');
      expect(call.body.channel_id).toBe(CHANNEL);
      expect(call.body.thread_ts).toBe(ts);
    }
    const [chartId, csvId] = completed.map((call) => String((call.body.files as Array<{ id: string }>)[0]!.id));
    const png = h.slack.fileContent(chartId!)!;
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(png.byteLength).toBeGreaterThan(1_000);
    const attached = h.slack.fileContent(csvId!)!.toString('utf8');
    expect(attached.split('\r\n')[0]).toBe('region,orders,units');
    for (const region of REGIONS) {
      const { count, units } = sales.byRegion.get(region)!;
      expect(attached).toContain(`${region},${count},${units}\r\n`);
    }
    // The tool results name what was posted, with Slack's file ids (the console's run page lists them).
    expect(toolResultsIn(h.model.requests[2]!).at(-1)).toContain(`Slack file ${chartId}`);
    expect(toolResultsIn(h.model.requests[4]!).at(-1)).toContain(`Attached sales.q1.csv`);

    // The table: Slack's table block, posted into the thread, header then one row per region.
    const tableMessage = h.slack.botMessages(CHANNEL, ts).find((m) => (m.blocks ?? []).some((b) => (b as { type?: string }).type === 'table'));
    expect(tableMessage).toBeDefined();
    const table = (tableMessage!.blocks as Array<{ type: string; rows?: Array<Array<{ text: string }>> }>).find((b) => b.type === 'table')!;
    expect(table.rows!.map((row) => row.map((cell) => cell.text))).toEqual([
      ['region', 'orders', 'units'],
      ...[...REGIONS].sort().map((region) => [region, String(sales.byRegion.get(region)!.count), String(sales.byRegion.get(region)!.units)]),
    ]);
    // The chart and the CSV are messages of the thread, carrying their files.
    const withFiles = h.slack.botMessages(CHANNEL, ts).flatMap((m) => (m as { files?: Array<{ id: string }> }).files ?? []);
    expect(withFiles.map((file) => file.id)).toEqual(expect.arrayContaining([chartId, csvId]));
  }, 120_000);

  it('keeps the result as a file of the thread: the next question lists it, and load_file reads it', async () => {
    const threadTs = h.slack.botMessages(CHANNEL).find((m) => m.thread_ts)!.thread_ts!;
    h.model.enqueue({ toolCalls: [{ name: 'load_file', arguments: { id: 'F1.q1' } }] }, { text: 'It is the per-region table.' });
    await h.mention({ text: `<@${h.slack.botUserId}> what is in F1.q1?`, threadTs });
    await h.slack.waitFor(() => h.model.requests.length >= 2, 60_000);
    expect(JSON.stringify(h.model.requests[0]!.messages)).toContain('results of query_table over F1');
    expect(JSON.stringify(h.model.requests[0]!.messages)).toMatch(/F1\.q1 \| \\"sales\.q1\.csv\\"/);
    const loaded = toolResultsIn(h.model.requests[1]!)[0]!;
    expect(loaded).toContain('region,orders,units');
  }, 120_000);
});
