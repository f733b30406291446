/**
 * Nothing a run makes outlives it. 300 runs over 300 threads go through the real worker, executor, ledger and
 * thread files (PGlite in memory), with the thread read from and the answer written to in-memory edges that
 * implement the run's seams. Every per-run object — the opened files (and the Slack file objects inside them) and
 * the answer channel — is watched with a FinalizationRegistry: once the runs are done and memory is collected,
 * every one of them must be gone, so no map anywhere keeps a thread's state for the life of the process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunExecutor } from '../../src/runs/answer-run';
import { createRunWorker } from '../../src/runs/run-worker';
import type { AnswerChannel, OpenAnswerChannel, ThreadFiles, ThreadSource } from '../../src/runs/seams';
import { createThreadFiles } from '../../src/files/thread-files';
import { createSlackFileSource } from '../../src/slack/files/slack-file-source';
import { createRunLedger } from '../../src/store/run-ledger';
import { enqueueRun, getRun } from '../../src/store/run-store';
import { upsertThreads } from '../../src/store/thread-store';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';
import type { ChatModel } from '../../src/core/chat';
import { createDefaultTools } from '../../src/tools';
import { createLogger } from '../../src/logging/logger';
import type { SlackMessage } from '../../src/conversation';
import { eventually } from '../support/eventually';

const RUNS = 300;
const gc = (globalThis as { gc?: () => void }).gc;

describe('a run releases what it made', () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await openDatabase({ driver: 'pglite' });
  });
  afterAll(() => database?.close());

  it(`leaves no per-thread state behind after ${RUNS.toLocaleString('en-US')} runs over as many threads`, async () => {
    expect(gc, 'vitest.config.ts runs the tests with --expose-gc').toBeTypeOf('function');
    const alive = new Set<string>();
    const watcher = new FinalizationRegistry<string>((key) => alive.delete(key));
    const watch = (object: object, key: string) => {
      alive.add(key);
      watcher.register(object, key);
    };

    // Each thread: one question with a file attached, so every run registers files and holds Slack file objects.
    const threadSource: ThreadSource = {
      messages: async (channelId, threadTs) => [
        {
          ts: threadTs,
          user: 'U0ANA',
          text: `<@U0BOT> what is in ${channelId}'s notes?`,
          files: [{ id: `F${channelId}`, name: 'notes.md', mimetype: 'text/markdown', filetype: 'markdown', size: 42, mode: 'hosted' }],
        } satisfies SlackMessage,
      ],
      names: async (ids) => new Map(ids.map((id) => [id, id === 'U0ANA' ? 'Ana' : id])),
      channel: async () => ({ name: 'general', isDirectMessage: false }),
    };
    const answered: string[] = [];
    const answers: OpenAnswerChannel = (target) => {
      const channel: AnswerChannel = {
        status: { set: async () => {}, clear: async () => {} },
        answer: {
          append: () => {},
          breakParagraph: () => {},
          discardSinceBreak: () => {},
          finish: async (answer) => {
            answered.push(answer);
            return [`${target.threadTs}9`];
          },
          fail: async (sentence) => {
            throw new Error(`run ${target.runId} failed: ${sentence}`);
          },
        },
        retireDrafts: async () => false,
        post: async () => {},
        requestApproval: async () => undefined,
      };
      watch(channel, `channel ${target.runId}`);
      return channel;
    };
    const realFiles = createThreadFiles({
      db: database.db,
      extractor: { extract: () => Promise.reject(new Error('not read in this test')) },
      searcher: async () => [],
      onExtracted: async () => {},
      openSource: (objects) => createSlackFileSource({ db: database.db, slack: { botToken: 'xoxb-test', apiUrl: 'http://127.0.0.1:9/api/' }, objects }),
      limits: { maxFileBytes: 1_000_000, maxImageBytes: 100_000 },
      preloadKb: 0,
      maxImagesPerTurn: 4,
      model: { name: 'scripted', complete: () => Promise.reject(new Error('unused')), supportsImages: () => true },
      logger: createLogger({ level: 'error', write: () => {} }),
    });
    const files: ThreadFiles = {
      async open(threadId, messages, names) {
        const opened = await realFiles.open(threadId, messages, names);
        watch(opened, `files ${threadId}`);
        watch(opened.access, `access ${threadId}`);
        return opened;
      },
    };
    const model: ChatModel = {
      name: 'scripted',
      complete: async (request) => ({
        text: `Answer ${request.messages.length}`,
        toolCalls: [],
        usage: { inputTokens: 10, outputTokens: 2 },
        finishReason: 'stop',
      }),
    };
    const logger = createLogger({ level: 'error', write: () => {} });
    const tools = createDefaultTools();
    const execute = createRunExecutor({
      bot: { userId: 'U0BOT', name: 'threadwise' },
      threads: threadSource,
      answers,
      ledger: createRunLedger(database.db),
      files,
      model,
      toolsFor: () => tools,
      skills: { read: () => Promise.reject(new Error('no skills here')) },
      skillIndex: () => [],
      settings: { maxIterations: 3, runTimeoutMs: 60_000, toolTimeoutMs: 10_000, contextWindow: 32_768, stream: false, timeZone: 'UTC', approvalTimeoutMs: 60_000 },
      now: Date.now,
      logger,
    });
    const worker = createRunWorker({ db: database.db, owner: 'lifetime-test', logger, leaseMs: 30_000, pollMs: 50, concurrency: 8, execute });

    const threads = await upsertThreads(
      database.db,
      Array.from({ length: RUNS }, (_, i) => ({ channelId: `C${String(i).padStart(5, '0')}`, threadTs: `1700000000.${String(i).padStart(6, '0')}` })),
    );
    const runIds: number[] = [];
    for (const thread of threads) runIds.push((await enqueueRun(database.db, { threadId: thread.id, triggerTs: thread.threadTs, triggerUserId: 'U0ANA' })).run.id);

    worker.start();
    await eventually(() => answered.length === RUNS && worker.active() === 0, { timeoutMs: 200_000, what: 'the runs all finished' });
    await worker.stop(1_000);

    const last = await getRun(database.db, runIds.at(-1)!);
    expect(last?.status).toBe('done');
    expect(answered).toHaveLength(RUNS);

    // Collect until the finalizers have run for everything the runs made (bounded: a leak keeps them alive forever).
    for (let round = 0; round < 50 && alive.size > 0; round++) {
      gc!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect([...alive].slice(0, 5)).toEqual([]);
  }, 240_000);
});
