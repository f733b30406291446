/**
 * The first request of a question posted with a small PDF: through the real run executor, thread files and Slack
 * file source (the fake Slack serves the PDF over HTTP), the request the model gets already lists the PDF's page
 * count and holds its preload, although nothing had read the file before the question. The extractor is a fake that
 * answers at once, so the only wait is the documented bound's own early end; no sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunExecutor } from '../../src/runs/answer-run';
import type { AnswerChannel, OpenAnswerChannel, ThreadSource } from '../../src/runs/seams';
import { createThreadFiles } from '../../src/files/thread-files';
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

describe('the first request of a question posted with a PDF', () => {
  let database: DatabaseHandle;
  let slack: FakeSlack;
  beforeAll(async () => {
    [database, slack] = await Promise.all([openDatabase({ driver: 'pglite' }), startFakeSlack()]);
  });
  afterAll(async () => {
    await slack?.close();
    await database?.close();
  });

  it('holds its page count and preload', async () => {
    const pdf = slack.addFile({ name: 'handbook.pdf', mimetype: 'application/pdf', content: '%PDF-1.4 the bytes do not matter to the fake' });
    const extracted: string[] = [];
    const extractor = {
      async extract({ name }: { name: string }): Promise<ExtractedDocument> {
        extracted.push(name);
        return { text: '--- page 1 ---\nWelcome to the handbook. Expenses are reimbursed within 30 days.\n', pageCount: 40, outline: [], segments: [], notes: [] };
      },
    };
    const threadSource: ThreadSource = {
      messages: async (_channelId, threadTs) => [{ ts: threadTs, user: 'U0ANA', text: '<@U0BOT> how fast are expenses paid?', files: [pdf] } satisfies SlackMessage],
      names: async (ids) => new Map(ids.map((id) => [id, id === 'U0ANA' ? 'Ana' : id])),
      channel: async () => ({ name: 'general', isDirectMessage: false }),
    };
    const requests: ChatRequest[] = [];
    const model: ChatModel = {
      name: 'scripted',
      complete: async (request) => {
        requests.push(request);
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
      onExtracted: async () => {},
      openSource: (objects) => createSlackFileSource({ db: database.db, slack: { botToken: slack.botToken, apiUrl: slack.apiUrl }, objects }),
      limits: { maxFileBytes: 1_000_000, maxImageBytes: 100_000 },
      preloadKb: 8,
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

    expect(extracted).toEqual(['handbook.pdf']);
    const first = JSON.stringify(requests[0]!.messages);
    expect(first).toMatch(/F1 \| \\"handbook\.pdf\\" \| pdf \| \d+ B \| 40 \| yes, whole/);
    expect(first).toContain('Expenses are reimbursed within 30 days.');
  });
});
