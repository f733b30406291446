/**
 * The first request of a question posted with a long PDF (117 pages, built here): through the real run executor,
 * thread files, Slack file source (the fake Slack serves the PDF over HTTP) and the real extraction workers, the
 * request the model gets holds the PDF's opening text and page count while the whole file is still being read. The
 * whole read is held back by a wrapper around the real extractor until the request has gone out — no timing, no
 * sleeps — and once released it lands in the cache (and is told to the indexer) in the background.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunExecutor } from '../../src/runs/answer-run';
import type { AnswerChannel, OpenAnswerChannel, ThreadSource } from '../../src/runs/seams';
import { createThreadFiles } from '../../src/files/thread-files';
import { findCachedRead } from '../../src/files/file-store';
import { createDocumentExtractor, type ExtractInput } from '../../src/documents';
import { createSlackFileSource } from '../../src/slack/files/slack-file-source';
import { createRunLedger } from '../../src/store/run-ledger';
import { claimNextRun, enqueueRun } from '../../src/store/run-store';
import { upsertThreads } from '../../src/store/thread-store';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';
import type { ChatModel, ChatRequest } from '../../src/core/chat';
import type { ExtractedDocument } from '../../src/core/thread-file';
import { createDefaultTools } from '../../src/tools';
import { createLogger } from '../../src/logging/logger';
import type { SlackMessage } from '../../src/conversation';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { buildPdf } from '../support/image-pdf';

const PAGES = 117;
/** About 2 KB of text a page, so the first pages (the extractor's firstPassChars) end well before page 117. */
function pageLines(page: number): string[] {
  if (page === 1) return ['Travel and expenses handbook', 'Expenses are reimbursed within 30 days of the claim.', ...filler(page, 28)];
  if (page === PAGES) return ['Appendix Z', 'The last page names the auditor: Okonkwo & Partners.', ...filler(page, 28)];
  return filler(page, 30);
}
function filler(page: number, lines: number): string[] {
  return Array.from({ length: lines }, (_, i) => `Section ${page}.${i + 1}: claims are filed with receipts, approved by a manager, then paid.`);
}

describe('the first request of a question posted with a 117-page PDF', () => {
  let database: DatabaseHandle;
  let slack: FakeSlack;
  const real = createDocumentExtractor({ maxThreads: 1 });
  beforeAll(async () => {
    [database, slack] = await Promise.all([openDatabase({ driver: 'pglite' }), startFakeSlack()]);
  });
  afterAll(async () => {
    await real.close();
    await slack?.close();
    await database?.close();
  });

  it('holds its opening text and page count while the whole file is still being read', async () => {
    const pdf = slack.addFile({ name: 'handbook.pdf', mimetype: 'application/pdf', content: buildPdf(Array.from({ length: PAGES }, (_, i) => ({ text: pageLines(i + 1) }))) });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let wholeReturned = false;
    const openings: ExtractedDocument[] = [];
    // The real extractor; only the whole document's return waits for the test's word.
    const extractor = {
      async extract(input: ExtractInput): Promise<ExtractedDocument> {
        const document = await real.extract({ ...input, onFirstPages: (opening) => (openings.push(opening), input.onFirstPages?.(opening)) });
        await released;
        wholeReturned = true;
        return document;
      },
    };
    let indexed!: (document: ExtractedDocument) => void;
    const landed = new Promise<ExtractedDocument>((resolve) => (indexed = resolve));
    const threadSource: ThreadSource = {
      messages: async (_channelId, threadTs) => [{ ts: threadTs, user: 'U0ANA', text: '<@U0BOT> how fast are expenses paid?', files: [pdf] } satisfies SlackMessage],
      names: async (ids) => new Map(ids.map((id) => [id, id === 'U0ANA' ? 'Ana' : id])),
      channel: async () => ({ name: 'general', isDirectMessage: false }),
    };
    const requests: ChatRequest[] = [];
    const wholeReadAtRequest: boolean[] = [];
    const model: ChatModel = {
      name: 'scripted',
      complete: async (request) => {
        requests.push(request);
        wholeReadAtRequest.push(wholeReturned);
        return { text: 'Within 30 days (handbook.pdf, p. 1).', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, finishReason: 'stop' };
      },
    };
    const answers: OpenAnswerChannel = () =>
      ({
        status: { set: async () => {}, clear: async () => {} },
        answer: { append: () => {}, breakParagraph: () => {}, discardSinceBreak: () => {}, finish: async () => ['1700000000.0009'], fail: async (s: string) => Promise.reject(new Error(s)) },
        retireDrafts: async () => false,
        post: async () => {},
        requestApproval: async () => undefined,
      }) satisfies AnswerChannel;
    const logger = createLogger({ level: 'error', write: () => {} });
    const files = createThreadFiles({
      db: database.db,
      extractor,
      searcher: async () => [],
      onExtracted: async (_hash, document) => indexed(document),
      openSource: (objects) => createSlackFileSource({ db: database.db, slack: { botToken: slack.botToken, apiUrl: slack.apiUrl }, objects }),
      limits: { maxFileBytes: 10_000_000, maxImageBytes: 100_000 },
      preloadKb: 8,
      // Far above what the opening takes even on a loaded machine (a cold worker): the wait ends when it is told.
      firstRequestWaitMs: 120_000,
      maxImagesPerTurn: 4,
      model: { ...model, supportsImages: () => true },
      logger,
    });
    const execute = createRunExecutor({
      bot: { userId: 'U0BOT', name: 'threadwise' },
      threads: threadSource,
      answers,
      ledger: createRunLedger(database.db),
      files,
      model,
      toolsFor: () => createDefaultTools(),
      skills: { read: () => Promise.reject(new Error('no skills here')) },
      skillIndex: () => [],
      settings: { maxIterations: 3, runTimeoutMs: 60_000, toolTimeoutMs: 10_000, contextWindow: 32_768, stream: false, timeZone: 'UTC', approvalTimeoutMs: 60_000 },
      now: Date.now,
      logger,
    });

    const [thread] = await upsertThreads(database.db, [{ channelId: 'C1', threadTs: '1700000000.000100' }]);
    await enqueueRun(database.db, { threadId: thread!.id, triggerTs: thread!.threadTs, triggerUserId: 'U0ANA' });
    const claimed = await claimNextRun(database.db, 'first-request-test', 30_000);
    await execute(claimed!, new AbortController().signal);

    expect(openings).toHaveLength(1);
    expect(openings[0]!.pageCount).toBe(PAGES);
    expect(openings[0]!.segments.length).toBeLessThan(PAGES);
    // The request went out before the whole file was read, and holds the opening and the page count.
    expect(wholeReadAtRequest[0]).toBe(false);
    const first = JSON.stringify(requests[0]!.messages);
    expect(first).toMatch(/F1 \| \\"handbook\.pdf\\" \| pdf \| [\d.]+ KB \| 117 \| first [\d,]+ chars/);
    expect(first).toContain('Expenses are reimbursed within 30 days of the claim.');
    expect(await findCachedRead(database.db, pdf.id)).toBeUndefined();

    // The rest lands in the background: cached whole, and handed to the indexer for search.
    release();
    const whole = await landed;
    expect(whole.pageCount).toBe(PAGES);
    expect(whole.text).toContain('Okonkwo & Partners');
    const cached = await findCachedRead(database.db, pdf.id);
    expect(cached?.ok && cached.document.text).toContain('Okonkwo & Partners');
  });
});
