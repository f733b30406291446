/**
 * A run's charts and files on its console page: a CSV shared in Slack is queried, charted (a PNG), shown as a table
 * and attached as CSV and as XLSX, through the fakes; the operator, signed in, sees the chart as an image under its
 * caption and downloads the files from the run's page. What serves them refuses everything else: no session, a
 * number that is not one of the run's posts, another run's number under this run, a table (nothing to download).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { rowsOf } from '../../src/store/database';
import { CHANNEL, startHarness, type Harness } from '../support/harness';
import { eventually } from '../support/eventually';
import { buildSalesCsv, REGIONS } from '../tables/support/table-fixtures';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'console-token-for-tests-6c1f0a9e';
const SCREENSHOTS = join(process.cwd(), 'test-output', 'console');
const hasChromium = existsSync(CHROMIUM);
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const QUERY = 'SELECT region, count(*) AS orders, sum(units) AS units FROM data GROUP BY region ORDER BY region';
const CHART_SPEC = {
  mark: 'point',
  title: 'Units by region',
  encoding: { x: { field: 'orders', type: 'quantitative' }, y: { field: 'units', type: 'quantitative' }, color: { field: 'region', type: 'nominal' } },
};

let h: Harness;
let consoleUrl: string;
let runId: number;
let otherRunId: number;
/** The run's make_chart and attach_file steps, in the order they ran. */
let steps: { chart: number; table: number; csv: number; xlsx: number };
let otherStep: number;
let cookie: string;
const sales = buildSalesCsv(20_000);

async function runOf(threadTs: string) {
  const row = async () => rowsOf<{ id: number; status: string }>(await h.database.db.execute(sql`select r.id, r.status from runs r join threads t on t.id = r.thread_id where t.thread_ts = ${threadTs}`))[0];
  await eventually(async () => (await row())?.status === 'done', { timeoutMs: 30_000, what: 'the run is done' });
  return Number((await row())!.id);
}

async function stepsOf(run: number) {
  return rowsOf<{ id: number; name: string }>(await h.database.db.execute(sql`select id, name from run_steps where run_id = ${run} and kind = 'tool' order by id`)).map((r) => ({ ...r, id: Number(r.id) }));
}

const get = (path: string, withSession = true) => fetch(`${consoleUrl}${path}`, { headers: withSession ? { cookie } : {}, redirect: 'manual' });

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  h = await startHarness({ env: { CONSOLE_PORT: '0', CONSOLE_TOKEN: TOKEN } });
  consoleUrl = h.app.consoleUrl!;
  const csv = h.slack.addFile({ name: 'sales.csv', mimetype: 'text/csv', filetype: 'csv', content: Buffer.from(sales.bytes) });
  h.model.enqueue(
    { toolCalls: [{ name: 'query_table', arguments: { id: 'F1', sql: QUERY } }] },
    { toolCalls: [{ name: 'make_chart', arguments: { id: 'F1.q1', spec: CHART_SPEC } }] },
    { toolCalls: [{ name: 'make_chart', arguments: { id: 'F1.q1', spec: { mark: 'table' } } }] },
    { toolCalls: [{ name: 'attach_file', arguments: { id: 'F1.q1' } }] },
    { toolCalls: [{ name: 'attach_file', arguments: { id: 'F1.q1', format: 'xlsx' } }] },
    { text: 'North sold the most units; the chart and the files are in the thread.' },
  );
  const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> units per region? chart it, and the file in CSV and Excel`, files: [csv] });
  await h.answers(CHANNEL, ts, 1, 60_000);
  runId = await runOf(ts);
  const posted = (await stepsOf(runId)).filter((s) => s.name !== 'query_table');
  expect(posted.map((s) => s.name)).toEqual(['make_chart', 'make_chart', 'attach_file', 'attach_file']);
  steps = { chart: posted[0]!.id, table: posted[1]!.id, csv: posted[2]!.id, xlsx: posted[3]!.id };

  // Another run in another thread, which also charts its own file.
  const other = h.slack.addFile({ name: 'other.csv', mimetype: 'text/csv', filetype: 'csv', content: Buffer.from('k,v\na,1\nb,2\n') });
  h.model.enqueue(
    { toolCalls: [{ name: 'query_table', arguments: { id: 'F1', sql: 'SELECT k, v FROM data' } }] },
    { toolCalls: [{ name: 'make_chart', arguments: { id: 'F1.q1', spec: { mark: 'point', encoding: { x: { field: 'k', type: 'nominal' }, y: { field: 'v', type: 'quantitative' } } } } }] },
    { text: 'Done.' },
  );
  const second = await h.mention({ text: `<@${h.slack.botUserId}> chart this`, files: [other] });
  await h.answers(CHANNEL, second.ts, 1, 60_000);
  otherRunId = await runOf(second.ts);
  otherStep = (await stepsOf(otherRunId)).find((s) => s.name === 'make_chart')!.id;

  const signedIn = await fetch(`${consoleUrl}/sign-in`, {
    method: 'POST',
    body: new URLSearchParams({ token: TOKEN, next: '/' }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
}, 180_000);

afterAll(() => h?.close());

describe("a run's posted charts and files, served by the console", () => {
  it('serves the chart as a PNG and the files as the run attached them, to a signed-in operator', async () => {
    const chart = await get(`/runs/${runId}/posted/${steps.chart}`);
    expect(chart.status).toBe(200);
    expect(chart.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await chart.arrayBuffer()).subarray(0, 8)]).toEqual(PNG_SIGNATURE);

    const csv = await get(`/runs/${runId}/posted/${steps.csv}`);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="sales.q1.csv"; filename*=UTF-8''sales.q1.csv`);
    const text = await csv.text();
    expect(text.split('\r\n')[0]).toBe('region,orders,units');
    for (const region of REGIONS) expect(text).toContain(`${region},${sales.byRegion.get(region)!.count},${sales.byRegion.get(region)!.units}\r\n`);

    const xlsx = await get(`/runs/${runId}/posted/${steps.xlsx}`);
    expect(xlsx.headers.get('content-disposition')).toContain('filename="sales.q1.xlsx"');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await xlsx.arrayBuffer());
    expect((workbook.worksheets[0]!.getRow(2).values as ExcelJS.CellValue[]).slice(1)).toEqual(['central', sales.byRegion.get('central')!.count, sales.byRegion.get('central')!.units]);
  });

  it('refuses without a session, a number that is not one of the run’s posts, another run’s post under this run, and a table', async () => {
    const noSession = await get(`/runs/${runId}/posted/${steps.chart}`, false);
    expect(noSession.status).toBe(401);
    expect(await noSession.text()).toBe('Sign in first.');

    const wrong = await get(`/runs/${runId}/posted/${steps.xlsx + 1_000}`);
    expect(wrong.status).toBe(404);
    expect(await wrong.text()).toBe(`Run #${runId} posted nothing under the number ${steps.xlsx + 1_000}.`);
    // The other run's chart exists, but not under this run; and this run's chart not under the other run.
    expect((await get(`/runs/${runId}/posted/${otherStep}`)).status).toBe(404);
    expect((await get(`/runs/${otherRunId}/posted/${steps.chart}`)).status).toBe(404);
    expect((await get(`/runs/${otherRunId}/posted/${otherStep}`)).status).toBe(200);
    // A step of the run that posts nothing (its query), and nonsense.
    const query = (await stepsOf(runId)).find((s) => s.name === 'query_table')!.id;
    expect((await get(`/runs/${runId}/posted/${query}`)).status).toBe(404);
    expect((await get(`/runs/${runId}/posted/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);
    const table = await get(`/runs/${runId}/posted/${steps.table}`);
    expect(table.status).toBe(404);
    expect(await table.text()).toBe(`Run #${runId} posted F1.q1 as a table in Slack; there is no image or file of it.`);
  });
});

describe.skipIf(!hasChromium)("a run's page in Chromium", () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
    await page.goto(`${consoleUrl}/sign-in?next=${encodeURIComponent(`/runs/${runId}`)}`);
    await page.getByLabel('Console token (CONSOLE_TOKEN)').fill(TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${consoleUrl}/runs/${runId}`);
  }, 60_000);

  afterAll(() => browser?.close());

  it('shows the chart as an image under its caption', async () => {
    const figure = page.locator('figure.posted-chart');
    expect(await figure.count()).toBe(1);
    expect(await figure.evaluate((el) => el.firstElementChild?.tagName === 'FIGCAPTION' && el.querySelector('figcaption + img') !== null)).toBe(true);
    expect(await figure.locator('figcaption').innerText()).toBe('Units by region');
    const image = figure.locator('img');
    await image.scrollIntoViewIfNeeded();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 30_000 }).toBeGreaterThan(600);
    expect(await image.getAttribute('alt')).toBe('Units by region: the chart the run posted, drawn from sales.q1.csv');
    await page.screenshot({ path: join(SCREENSHOTS, 'run-outputs.png'), fullPage: true });
  });

  it('links the files the run attached, and the link downloads the CSV', async () => {
    const posted = await page.locator('ul.posted').innerText();
    expect(posted).toContain('table of sales.q1.csv');
    const csvLink = page.getByRole('link', { name: 'sales.q1.csv', exact: true });
    const [download] = await Promise.all([page.waitForEvent('download'), csvLink.click()]);
    expect(download.suggestedFilename()).toBe('sales.q1.csv');
    const text = await readFile((await download.path())!, 'utf8');
    expect(text.split('\r\n')[0]).toBe('region,orders,units');
    expect(text).toContain(`north,${sales.byRegion.get('north')!.count},${sales.byRegion.get('north')!.units}\r\n`);
    expect(await page.getByRole('link', { name: 'sales.q1.xlsx' }).getAttribute('href')).toBe(`/runs/${runId}/posted/${steps.xlsx}`);
  });
});
