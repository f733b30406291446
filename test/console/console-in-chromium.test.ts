/**
 * The console in a real browser (Debian's chromium driven by playwright-core): an operator signs in with the token,
 * finds a run made through the fakes in Runs, opens it and sees each tool call with its arguments, and sees the
 * channel's tokens on Usage — channels, people and files by name, the id on hover — and what a running run is doing
 * now. Every page is saved as a screenshot under test-output/console/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/store/database';
import { ANA, CHANNEL, startHarness, type Harness } from '../support/harness';

/** The harness's channel and person as Slack names them (conversations.info, users.info). */
const CHANNEL_NAME = '#general';
const ANA_NAME = 'Ana';
import type { ChatRequestBody } from '../fakes/fake-openai';
import { eventually } from '../support/eventually';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'console-token-for-tests-6c1f0a9e';
const SCREENSHOTS = join(process.cwd(), 'test-output', 'console');
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`[skipped] console browser tests: ${CHROMIUM} is missing (apt-get install -y chromium)`);

const hasToolResults = (request: ChatRequestBody) => request.messages.some((m) => m.role === 'tool');

describe.skipIf(!hasChromium)('the operator console in Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  let runId: number;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    h = await startHarness({ env: { CONSOLE_PORT: '0', CONSOLE_TOKEN: TOKEN } });
    consoleUrl = h.app.consoleUrl!;
    const notes = h.slack.addFile({ name: 'release-notes.txt', mimetype: 'text/plain', content: Buffer.from('Release 4.2\nFixed the login loop.\nNew: dark mode.\n') });
    h.model.setDefault((request) =>
      hasToolResults(request)
        ? { text: 'Release 4.2 fixed the login loop and added dark mode.', usage: { prompt_tokens: 2_000, completion_tokens: 60 } }
        : {
            toolCalls: [
              { name: 'peek_file', arguments: { id: 'F1', start: 0, stop: 400 } },
              { name: 'load_skill', arguments: { name: 'jira' } },
            ],
            usage: { prompt_tokens: 1_500, completion_tokens: 45 },
          },
    );
    const { ts } = await h.mention({ user: ANA, text: `<@${h.slack.botUserId}> what changed in release 4.2?`, files: [notes] });
    await h.answers(CHANNEL, ts);
    const runOf = async () =>
      rowsOf<{ id: number; status: string }>(await h.database.db.execute(sql`select r.id, r.status from runs r join threads t on t.id = r.thread_id where t.thread_ts = ${ts}`))[0];
    await eventually(async () => (await runOf())?.status === 'done', { timeoutMs: 15_000, what: 'the run is done' });
    runId = Number((await runOf())!.id);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('asks for the token first and signs in with it', async () => {
    await page.goto(`${consoleUrl}/runs`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await page.screenshot({ path: join(SCREENSHOTS, 'sign-in.png'), fullPage: true });
    await page.getByLabel('Console token (CONSOLE_TOKEN)').fill(TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${consoleUrl}/runs`);
    const cookies = await page.context().cookies();
    expect(cookies).toEqual([expect.objectContaining({ name: 'threadwise_console', httpOnly: true, sameSite: 'Strict', secure: false })]);
    expect(page.url()).not.toContain(TOKEN);
  });

  it('lists the run made through the fakes in Runs', async () => {
    await page.goto(`${consoleUrl}/runs`);
    const row = page.locator('tbody tr', { hasText: 'what changed in release 4.2?' });
    await expect.poll(() => row.count()).toBe(1);
    const cells = await row.locator('td').allInnerTexts();
    expect(cells[0]).toBe(`#${runId}`);
    expect(cells).toContain(CHANNEL_NAME);
    expect(cells).toContain(ANA_NAME);
    expect(cells).not.toContain(CHANNEL);
    expect(cells).not.toContain(ANA);
    expect(await row.locator(`span[title="${CHANNEL}"]`).innerText()).toBe(CHANNEL_NAME); // the id on hover
    expect(await row.locator(`span[title="${ANA}"]`).innerText()).toBe(ANA_NAME);
    expect(cells).toContain('done');
    expect(cells).toContain('3,500 / 105');
    await page.screenshot({ path: join(SCREENSHOTS, 'runs.png'), fullPage: true });
    // Filters narrow the list, and keep to the keyboard: a filter that matches nothing says so.
    await page.getByLabel('Channel', { exact: true }).fill('C0ELSEWHERE');
    await page.getByLabel('Channel', { exact: true }).press('Enter');
    await expect.poll(() => page.locator('caption').innerText()).toBe('No runs match these filters.');
    // …and a channel may be given by its name.
    await page.getByLabel('Channel', { exact: true }).fill(CHANNEL_NAME);
    await page.getByLabel('Channel', { exact: true }).press('Enter');
    await expect.poll(() => page.locator('tbody tr', { hasText: 'what changed in release 4.2?' }).count()).toBe(1);
  });

  it("shows the run's timeline with each tool call and its arguments", async () => {
    await page.goto(`${consoleUrl}/runs`);
    await page.getByRole('link', { name: `#${runId}` }).click();
    await page.waitForURL(`${consoleUrl}/runs/${runId}`);
    const peek = page.locator('ol.timeline > li', { hasText: 'tool call: peek_file' });
    const skill = page.locator('ol.timeline > li', { hasText: 'tool call: load_skill' });
    expect(JSON.parse(await peek.locator('pre').first().innerText())).toEqual({ id: 'F1', start: 0, stop: 400 });
    expect(JSON.parse(await skill.locator('pre').first().innerText())).toEqual({ name: 'jira' });
    expect(await peek.innerText()).toContain('Release 4.2'); // the first lines of its result
    expect(await page.locator('ol.timeline > li', { hasText: 'model call: gpt-4o-mini' }).count()).toBe(2);
    const facts = await page.locator('dl.facts').innerText();
    expect(facts).toMatch(/Skills loaded\s+jira/);
    expect(facts).toMatch(/Files read\s+release-notes\.txt/);
    expect(await page.locator('dl.facts span[title="F1"]').innerText()).toBe('release-notes.txt');
    expect(facts).toMatch(/Channel\s+#general/);
    expect(facts).toMatch(/Asked by\s+Ana/);
    expect(facts).not.toMatch(/\bNow\b/); // finished: nothing in progress
    expect(await peek.innerText()).toContain('(release-notes.txt)');
    expect(await page.locator('main').innerText()).toContain('Release 4.2 fixed the login loop and added dark mode.');
    expect(await page.getByRole('link', { name: 'Open the thread in Slack' }).getAttribute('href')).toContain(CHANNEL);
    await page.screenshot({ path: join(SCREENSHOTS, 'run.png'), fullPage: true });
  });

  it("shows the channel's tokens on Usage, as a chart and a table", async () => {
    await page.goto(`${consoleUrl}/usage`);
    const channelRow = page.locator('table', { has: page.locator('th', { hasText: /^channel$/ }) }).locator('tbody tr', { hasText: CHANNEL_NAME });
    const cells = await channelRow.locator('td').allInnerTexts();
    expect(cells).toEqual([CHANNEL_NAME, '1', '0', '3,500', '105', expect.stringMatching(/^\$0\.\d{4}$/)]);
    expect(await channelRow.locator(`span[title="${CHANNEL}"]`).count()).toBe(1);
    const userRow = page.locator('table', { has: page.locator('th', { hasText: /^user$/ }) }).locator('tbody tr').first();
    expect((await userRow.locator('td').allInnerTexts())[0]).toBe(ANA_NAME);
    expect(await page.locator('svg[role="img"] title', { hasText: 'Tokens per channel' }).count()).toBe(1);
    expect(await page.locator(`svg rect title`, { hasText: `${CHANNEL_NAME} (${CHANNEL}): 3,605` }).count()).toBe(1);
    // Each chart's caption comes before it.
    const captionFirst = await page
      .locator('figure')
      .evaluateAll((figures) => figures.every((figure) => figure.firstElementChild?.tagName === 'FIGCAPTION' && figure.querySelector('figcaption + svg') !== null));
    expect(captionFirst).toBe(true);
    expect(await page.locator('main').innerText()).not.toContain('(unknown)');
    await page.screenshot({ path: join(SCREENSHOTS, 'usage.png'), fullPage: true });
    const csv = await page.request.get(`${consoleUrl}/usage.csv?group=channel`);
    expect(await csv.text()).toContain(`${CHANNEL},1,0,3500,105,`);
  });

  it('shows Health and Live, and Live updates without a reload', async () => {
    await page.goto(`${consoleUrl}/health`);
    expect(await page.locator('main').innerText()).toMatch(/Database\s+✓ answers/);
    await page.screenshot({ path: join(SCREENSHOTS, 'health.png'), fullPage: true });

    await page.goto(`${consoleUrl}/live`);
    await expect.poll(() => page.locator('#live-rows').innerText()).toContain('Nothing in progress.');
    // A run starts while the page is open: the row appears through the event stream, on the same document.
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    h.model.setDefault({ delayMs: 6_000, then: { text: 'slow answer', usage: { prompt_tokens: 10, completion_tokens: 2 } } });
    const { ts } = await h.mention({ user: ANA, text: `<@${h.slack.botUserId}> take your time` });
    await expect.poll(() => page.locator('#live-rows').innerText(), { timeout: 10_000 }).toContain('take your time');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    // The row says what the run is doing, by name.
    const liveRow = page.locator('#live-rows tr', { hasText: 'take your time' });
    await expect.poll(() => liveRow.innerText(), { timeout: 10_000 }).toMatch(/model call \(gpt-4o-mini\) in flight for \d+ s/);
    expect(await liveRow.innerText()).toContain(CHANNEL_NAME);
    await page.screenshot({ path: join(SCREENSHOTS, 'live.png'), fullPage: true });

    // The running run's own page: its current step, not "No model or tool calls were recorded".
    await liveRow.getByRole('link').click();
    await page.waitForURL(/\/runs\/\d+$/);
    const now = await page.locator('#run-now').innerText();
    expect(now).toMatch(/^model call \(gpt-4o-mini\) in flight for \d+ s$/);
    const main = await page.locator('main').innerText();
    expect(main).not.toContain('No model or tool calls were recorded');
    expect(main).toMatch(/Now: model call \(gpt-4o-mini\) in flight for \d+ s\./);
    await page.screenshot({ path: join(SCREENSHOTS, 'run-in-progress.png'), fullPage: true });
    await h.answers(CHANNEL, ts);
    // Once answered, the step is gone and the calls are on the timeline.
    await expect.poll(async () => (await page.reload(), await page.locator('#run-now').count()), { timeout: 10_000 }).toBe(0);
    expect(await page.locator('main').innerText()).toContain('model call: gpt-4o-mini');
  });
});
