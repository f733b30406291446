/**
 * `npm run chat` with a data file: a child process against the fake model. query_table runs over the CSV given
 * with --file (the real DuckDB engine: exact numbers in the tool result), make_chart writes the chart as a PNG into
 * <DATA_DIR>/outputs, attach_file writes the result as CSV beside it, and the chat prints each path it wrote.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { toolResultsIn } from '../agent/loop-fixtures';
import { buildSalesCsv, REGIONS } from '../tables/support/table-fixtures';
import { chatEnvironment, spawnChat } from './support/chat-process';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe('npm run chat with a CSV', () => {
  let fake: FakeOpenAI;
  let dir: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    dir = await mkdtemp(path.join(tmpdir(), 'threadwise-chat-tables-'));
  });
  afterAll(async () => {
    await fake?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('queries it exactly, writes the chart PNG and the CSV into the outputs folder, and prints their paths', async () => {
    const sales = buildSalesCsv(5_000);
    const file = path.join(dir, 'sales.csv');
    await writeFile(file, sales.bytes);
    const dataDir = path.join(dir, 'data');
    fake.enqueue(
      { toolCalls: [{ name: 'query_table', arguments: { id: 'F1', sql: 'SELECT region, sum(units) AS units FROM data GROUP BY region ORDER BY units DESC' } }] },
      {
        toolCalls: [
          { name: 'make_chart', arguments: { id: 'F1.q1', spec: { mark: 'bar', title: 'Units by region', encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'units', type: 'quantitative' } } } } },
          { name: 'attach_file', arguments: { id: 'F1.q1' } },
        ],
      },
      { text: 'The chart and the CSV are written.' },
    );

    const chat = spawnChat(['--file', file, 'Units per region, as a chart and a file'], chatEnvironment(fake, dataDir));
    const { code } = await chat.exited;
    expect(code, chat.stderr()).toBe(0);
    expect(chat.stdout()).toContain('The chart and the CSV are written.');

    const queried = toolResultsIn(fake.requests[1]!)[0]!;
    for (const region of REGIONS) expect(queried).toMatch(new RegExp(`${region}\\s+${sales.byRegion.get(region)!.units}\\b`));

    const outputs = path.join(dataDir, 'outputs');
    const chartPath = path.join(outputs, 'sales.q1.chart.png');
    const csvPath = path.join(outputs, 'sales.q1.csv');
    expect(chat.stderr()).toContain(`wrote ${chartPath}`);
    expect(chat.stderr()).toContain(`wrote ${csvPath}`);
    expect([...(await readFile(chartPath)).subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    const csv = await readFile(csvPath, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('region,units');
    for (const region of REGIONS) expect(csv).toContain(`${region},${sales.byRegion.get(region)!.units}\r\n`);
    // The model was told where each file went.
    const posted = toolResultsIn(fake.requests[2]!).join('\n');
    expect(posted).toContain(chartPath);
    expect(posted).toContain(csvPath);
  }, 120_000);
});
