/**
 * query_table, make_chart and attach_file end to end: the real engine over a generated 150,000-row CSV, results in
 * the in-memory store, and the chart PNG and the CSV uploaded to the fake Slack over real HTTP into the thread.
 */
import { WebClient } from '@slack/web-api';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChartRenderer, type ChartRenderer } from '../../src/charts/chart-renderer';
import { ThreadwiseError } from '../../src/core/errors';
import { createSlackThreadOutput } from '../../src/slack/slack-thread-output';
import { describeTableFile } from '../../src/tables/describe-table-file';
import { createMemoryResultStore, type ResultStore } from '../../src/tables/result-store';
import { createTableAccess, type TableAccess } from '../../src/tables/table-access';
import { createTableEngine, type TableEngine } from '../../src/tables/table-engine';
import type { TableSource } from '../../src/tables/types';
import { createTableTools } from '../../src/tools/table-tools';
import type { Tool, ToolContext } from '../../src/tools/tool';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { buildSalesCsv, REGIONS, source, type SalesCsv } from '../tables/support/table-fixtures';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
let slack: FakeSlack;
let engine: TableEngine;
let charts: ChartRenderer;
let sales: SalesCsv;
let tables: TableAccess;
let results: ResultStore;
let threadTs: string;
let tools: Map<string, Tool>;
const activity: string[] = [];

beforeAll(async () => {
  slack = await startFakeSlack();
  engine = createTableEngine({ maxLoadedFiles: 1 });
  charts = createChartRenderer();
  sales = buildSalesCsv();
  const files = new Map<string, TableSource>([
    ['F1', source('sales.csv', 'csv', sales.bytes)],
    ['F2', source('other.csv', 'csv', new TextEncoder().encode('k\n1\n'))],
  ]);
  tables = createTableAccess({
    engine,
    readTableFile: async (fileId) => {
      const file = files.get(fileId);
      if (!file) throw new ThreadwiseError('unknown_file', `${fileId} is not a file of this thread; the files are F1, F2.`);
      return file;
    },
  });
  results = createMemoryResultStore();
  const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, timeout: 5_000 });
  threadTs = slack.addMessage('C42', { user: 'U1', text: 'which region sold most?' }).ts;
  const output = createSlackThreadOutput({ api: client, channel: 'C42', threadTs });
  tools = new Map(createTableTools({ tables, results, output, charts }).map((tool) => [tool.name, tool]));
});
afterAll(async () => {
  await engine?.close();
  await charts?.close();
  await slack?.close();
});

const context = (): ToolContext => ({
  files: {
    list: () => [],
    get: (id) => {
      throw new Error(`no file ${id}`);
    },
    readText: () => Promise.reject(new Error('unused')),
    extract: () => Promise.reject(new Error('unused')),
    readBytes: () => Promise.reject(new Error('unused')),
    readImage: () => Promise.reject(new Error('unused')),
    search: () => Promise.reject(new Error('unused')),
  },
  skills: { read: () => Promise.reject(new Error('no skills here')) },
  signal: new AbortController().signal,
  tokensLeft: () => 100_000,
  showImage: () => {},
  recordActivity: (entry) => activity.push(entry),
});
const run = (name: string, args: Record<string, unknown>) => tools.get(name)!.execute(tools.get(name)!.parameters.parse(args), context());

describe('the table tools', () => {
  it('have the contract\'s names and describe their arguments and results', () => {
    expect([...tools.keys()]).toEqual(['query_table', 'make_chart', 'attach_file']);
    for (const tool of tools.values()) expect(tool.description.length).toBeGreaterThan(200);
    expect(tools.get('query_table')!.description).toContain('result id');
  });

  it('query_table answers exactly, with the total, the rows as data and a result id', async () => {
    const text = await run('query_table', { id: 'F1', sql: 'SELECT region, sum(units) AS units FROM data GROUP BY region ORDER BY units DESC' });
    const lines = text.split('\n');
    expect(lines[0]).toBe('Result F1.q1 ("sales.q1.csv"): 5 rows × 2 columns (region VARCHAR, units HUGEINT), in ' + lines[0]!.match(/in (\d+) ms/)![1] + ' ms.');
    expect(text).toContain('<file_data id="F1.q1" name="sales.q1.csv">');
    const best = [...REGIONS].sort((a, b) => sales.byRegion.get(b)!.units - sales.byRegion.get(a)!.units)[0]!;
    expect(text).toMatch(new RegExp(`\\n${best}\\s+${sales.byRegion.get(best)!.units}\\n`));
    expect(text).toContain('Next: make_chart("F1.q1", spec) draws it; attach_file("F1.q1") uploads it as CSV (format "xlsx": an Excel workbook).');
    expect((await results.get('F1.q1'))!.rows).toHaveLength(5);
  });

  it('query_table shows the model at most 200 rows of a large result and says where the rest is', async () => {
    const text = await run('query_table', { id: 'F1', sql: 'SELECT * FROM data' });
    expect(text.split('\n')[0]).toMatch(/^Result F1\.q2 \("sales\.q2\.csv"\): 150,000 rows × 4 columns/);
    expect(text).toContain('only the first 10,000 are kept (the limit of 10,000 rows per result)');
    expect(text).toContain('Showing the first 200 of the 10,000 rows kept; all of them are in F1.q2.');
  });

  it('query_table reloads a file the engine dropped (a cache of one file here)', async () => {
    await run('query_table', { id: 'F2', sql: 'SELECT count(*) AS n FROM data' });
    const text = await run('query_table', { id: 'F1', sql: 'SELECT count(*) AS n FROM data' });
    expect(text).toMatch(/\n {5}n\n-{6}\n150000\n/);
    expect(engine.isLoaded(source('other.csv', 'csv', new TextEncoder().encode('k\n1\n')).key)).toBe(false);
  });

  it('make_chart posts a PNG into the thread through the upload flow', async () => {
    const text = await run('make_chart', {
      id: 'F1.q1',
      spec: { mark: 'point', title: 'Units by region', encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'units', type: 'quantitative' } } },
    });
    expect(text).toMatch(/^Posted the chart "Units by region" into the thread as sales\.q1\.chart\.png, \d+×\d+ px \(Slack file F\w+\)\.$/);
    const message = slack.botMessages('C42', threadTs).find((m) => m.files?.some((f) => f.name === 'sales.q1.chart.png'));
    expect(message, 'a bot message with the chart in the thread').toBeDefined();
    const png = slack.fileContent(message!.files![0]!.id)!;
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(png.byteLength).toBeGreaterThan(5_000);
    expect(slack.callsTo('files.completeUploadExternal').at(-1)!.body).toMatchObject({ channel_id: 'C42', thread_ts: threadTs });
  });

  it('make_chart posts Slack\'s chart block for a simple bar chart', async () => {
    const text = await run('make_chart', {
      id: 'F1.q1',
      spec: { mark: 'bar', title: 'Units', encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'units', type: 'quantitative' } } },
    });
    expect(text).toBe('Posted "Units" into the thread as Slack\'s chart block (5 rows of F1.q1).');
    const posted = slack.botMessages('C42', threadTs).at(-1)!;
    expect(posted.blocks).toMatchObject([{ type: 'data_visualization', title: 'Units', chart: { type: 'bar' } }]);
  });

  it('make_chart with {mark: "table"} posts the result as Slack\'s table block, or returns the aligned table where blocks cannot be posted', async () => {
    const text = await run('make_chart', { id: 'F1.q1', spec: { mark: 'table' } });
    expect(text).toBe('Posted F1.q1 into the thread as a table (5 rows); do not repeat its rows in your answer.');
    const posted = slack.botMessages('C42', threadTs).at(-1)!;
    const table = (posted.blocks as Array<{ type: string; rows: Array<Array<{ text: string }>> }>)[0]!;
    expect(table.type).toBe('table');
    expect(table.rows[0]!.map((cell) => cell.text)).toEqual(['region', 'units']);
    expect(table.rows).toHaveLength(6);

    // A surface without blocks (the terminal): the aligned table comes back for the answer.
    const plain = createTableTools({
      tables,
      results,
      output: { postImage: async () => ({}), attachFile: async () => ({}) },
      charts,
    }).find((tool) => tool.name === 'make_chart')!;
    const fallback = await plain.execute(plain.parameters.parse({ id: 'F1.q1', spec: { mark: 'table' } }), context());
    expect(fallback.split('\n')[0]).toBe('Tables cannot be posted here: put this aligned table in your answer as it is, fences included.');
    expect(fallback).toMatch(/```\nregion\s+units\n-+\s+-+\n/);
  });

  it('make_chart answers a bad spec and an unknown id with a sentence', async () => {
    await expect(run('make_chart', { id: 'F1.q1', spec: { mark: 'bar', encoding: { x: { field: 'regoin' } } } })).rejects.toThrow(
      'The encoding names "regoin", not a field of the result.',
    );
    await expect(run('make_chart', { id: 'F9.q1', spec: { mark: 'bar' } })).rejects.toThrow(
      '"F9.q1" is not a query result of this thread. make_chart takes the id query_table returned (like "F2.q1"); run query_table first.',
    );
  });

  it('attach_file uploads a result as CSV into the thread', async () => {
    const text = await run('attach_file', { id: 'F1.q1' });
    expect(text).toMatch(/^Attached sales\.q1\.csv \(5 rows, [\d.]+ [kK]?B\) to the thread \(Slack file F\w+\)\.$/);
    const message = slack.botMessages('C42', threadTs).find((m) => m.files?.some((f) => f.name === 'sales.q1.csv'));
    const csv = slack.fileContent(message!.files![0]!.id)!.toString();
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('region,units');
    expect(lines.slice(1).map((line) => line.split(',')).map(([r, u]) => [r, Number(u)]).sort()).toEqual(
      [...REGIONS].map((r) => [r, sales.byRegion.get(r)!.units]).sort(),
    );
  });

  it('attach_file uploads a result as an XLSX workbook with typed cells when asked for format "xlsx"', async () => {
    const query = await run('query_table', { id: 'F1', sql: 'SELECT region, sum(units) AS units, min(day) AS first_day, count(*) > 1 AS many FROM data GROUP BY region ORDER BY region' });
    const resultId = query.match(/^Result (F1\.q\d+)/)![1]!;
    const text = await run('attach_file', { id: resultId, format: 'xlsx' });
    const name = `sales.${resultId.split('.')[1]}.xlsx`;
    expect(text).toMatch(new RegExp(`^Attached ${name.replaceAll('.', '\\.')} \\(5 rows, [\\d.]+ [kK]?B\\) to the thread \\(Slack file F\\w+\\)\\.$`));

    // The workbook reached the fake Slack through the upload flow, into the thread…
    const message = slack.botMessages('C42', threadTs).find((m) => m.files?.some((f) => f.name === name));
    expect(message, 'a bot message with the workbook in the thread').toBeDefined();
    expect(slack.callsTo('files.completeUploadExternal').at(-1)!.body).toMatchObject({ channel_id: 'C42', thread_ts: threadTs });
    // …and reads back with the right cells: a header, then numbers as numbers, dates as dates, booleans as booleans.
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(slack.fileContent(message!.files![0]!.id)! as unknown as ArrayBuffer);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([name.replace(/\.xlsx$/, '')]);
    const rows = workbook.worksheets[0]!.getSheetValues().slice(1).map((row) => (row as ExcelJS.CellValue[]).slice(1));
    expect(rows).toEqual([
      ['region', 'units', 'first_day', 'many'],
      ...[...REGIONS].sort().map((region) => [region, sales.byRegion.get(region)!.units, new Date(Date.UTC(2024, 0, 1)), true]),
    ]);
  });

  it('attach_file refuses a workbook of a file that is not a result, with a sentence', async () => {
    const withFiles = createTableTools({
      tables,
      results,
      output: { postImage: async () => ({}), attachFile: async () => ({}) },
      charts,
      files: { read: async () => ({ name: 'notes.txt', bytes: new TextEncoder().encode('hello'), mimeType: 'text/plain' }) },
    }).find((tool) => tool.name === 'attach_file')!;
    await expect(withFiles.execute(withFiles.parameters.parse({ id: 'F1.txt', format: 'xlsx' }), context())).rejects.toThrow(
      '"F1.txt" is not a query result, and only results can be made into a workbook: query it with query_table first and attach that result with format "xlsx", or attach F1.txt as it is (no format).',
    );
    expect(await withFiles.execute(withFiles.parameters.parse({ id: 'F1.txt' }), context())).toBe('Attached notes.txt (5 B) to the thread.');
  });

  it('the describer gives columns, types and row count for extract_file and peek_file', async () => {
    const file = await tables.describe('F1');
    expect(describeTableFile('F1', file)).toBe(
      [
        'F1 is a table: query it as data.',
        'Tables and columns:',
        '- data: 150,000 rows; region VARCHAR, product VARCHAR, units BIGINT, day DATE',
        'Ask exact questions with query_table("F1", "SELECT … FROM data …") (DuckDB SQL; quote names with spaces in double quotes).',
      ].join('\n'),
    );
    expect(activity).toContain('F1 query → F1.q1');
  });
});
