/**
 * The run's seams for threads that live in this process's database instead of Slack — a terminal chat, an eval case
 * (runs/seams.ts): a ThreadSource over the stored transcript and an answer channel that writes the answer into that
 * transcript and shows the run on an AnswerDisplay. Messages are stored in the shape Slack gives them (a person's
 * user id and name, files as file objects), so conversation/, files/, context/ and the agent read a local thread
 * exactly as they read a Slack one.
 *
 * Ids cannot meet Slack's: channels are `local:<name>`, people `local:<name>`, files `local:<hex>` (Slack's are
 * C…/U…/F… without a colon). A question becomes an unleased run owned by this process (store/unleased-runs.ts):
 * no Slack worker sharing the database ever takes it over, and it is recorded like any run.
 */
import type { BotIdentity, SlackMessage } from '../conversation';
import { summarizeRunSteps, type RunStepRecord } from '../core/run-step';
import type { ThreadFile } from '../core/thread-file';
import { listThreadFiles, registerThreadFiles } from '../files';
import type { AnswerChannel, OpenAnswerChannel, ThreadSource } from '../runs/seams';
import type { Database } from '../store/database';
import { finishRun, listRunSteps, type RunOutcome, type RunRow } from '../store/run-store';
import { createFreshThread, listThreadMessages, saveThreadMessage } from '../store/transcript-store';
import { startUnleasedRun } from '../store/unleased-runs';
import { silentDisplay, type AnswerDisplay } from './answer-display';
import { createFolderThreadOutput } from './folder-thread-output';
import type { ThreadOutput } from '../tools';
import type { LocalFile } from './local-file';
import { messageOf } from '../core/errors';

export interface Person {
  /** `local:<name>`. */
  id: string;
  name: string;
}

/** The run (runs/answer-run.ts); a local run is never parked for approval: it asks on the spot, or refuses. */
type RunExecutor = (run: RunRow, signal: AbortSignal) => Promise<RunOutcome | { status: 'waiting_approval' }>;

interface ToolCallRecord {
  name: string;
  arguments: unknown;
  error?: string;
  durationMs: number;
  resultChars?: number;
}

/** One question's run, as recorded: what `--json` prints and the evals judge. */
export interface AskResult {
  runId: number;
  threadId: number;
  status: RunOutcome['status'];
  /** The answer as it stands in the thread; for a failed or cancelled run, the sentence posted instead. */
  answer: string;
  /** Said beside the answer when a limit was hit (steps, time, output length). */
  note?: string;
  /** Why the run failed, for logs and scripts; the person reads `answer`. */
  error?: string;
  model?: string;
  tokens: { input: number; output: number; total: number };
  /** Model calls, those of ask_file's reader included. */
  modelCalls: number;
  iterations: number;
  /** The agent's own tool calls, in order (ask_file's reader's searches are in its one ask_file call). */
  toolCalls: ToolCallRecord[];
  skillsLoaded: string[];
  durationMs: number;
}

export interface PostedMessage {
  ts: string;
  /** The files of this message as the thread now knows them (ids assigned). */
  files: ThreadFile[];
}

export interface Conversation {
  readonly threadId: number;
  readonly channelId: string;
  readonly threadTs: string;
  /** Puts a message in the thread without asking anything: earlier talk, a file dropped in, an earlier answer. */
  post(message: { from: Person | 'bot'; text?: string; files?: LocalFile[] }): Promise<PostedMessage>;
  /** Posts the question and answers it with the agent. Never throws for the run's own failures: see `status`. */
  ask(question: { from: Person; text: string; files?: LocalFile[] }, options?: { display?: AnswerDisplay; signal?: AbortSignal }): Promise<AskResult>;
  /** Every file of the thread, in id order. */
  files(): Promise<ThreadFile[]>;
}

export interface LocalEdgeOptions {
  db: Database;
  bot: BotIdentity;
  /** This process, as the owner of its runs: `local:` and something unique. */
  owner: string;
  /** Where make_chart and attach_file write their files (the display prints each path); none: nothing is posted. */
  outputDir?: string;
  now?: () => number;
}

export interface StartConversationOptions {
  /** `local:<name>`: where the thread is stored ("local:terminal", "local:eval"). */
  channelId: string;
  execute: RunExecutor;
  /** Reads files ahead of the question when they are dropped in without one. */
  prefetch?: (threadId: number, messages: SlackMessage[]) => void;
}

interface ActiveRun {
  display: AnswerDisplay;
  /** What the thread got: the answer, or the failure sentence. */
  posted?: string;
  note?: string;
}

export function createLocalEdge(options: LocalEdgeOptions) {
  const { db, bot } = options;
  const clock = createMessageClock(options.now ?? Date.now);
  const names = new Map<string, string>([[bot.userId, bot.name]]);
  const active = new Map<number, ActiveRun>();

  const threads: ThreadSource = {
    messages: (channelId, threadTs) => listThreadMessages<SlackMessage>(db, channelId, threadTs),
    names: async (userIds) => new Map(userIds.flatMap((id) => (names.has(id) ? [[id, names.get(id)!] as const] : []))),
    // One person at a keyboard talking to the bot: a direct message, as far as the prompt goes.
    channel: async (channelId) => ({ name: channelId.replace(/^local:/, ''), isDirectMessage: true }),
  };

  const answers: OpenAnswerChannel = (target) => {
    const run = active.get(target.runId) ?? { display: silentDisplay };
    let streamed = '';
    let breakAt = 0;
    const post = async (text: string) => {
      const ts = clock.next();
      await saveThreadMessage(db, await threadIdOf(target.channelId, target.threadTs), {
        ts,
        thread_ts: target.threadTs,
        user: bot.userId,
        username: bot.name,
        text,
      } satisfies SlackMessage);
      run.posted = text;
      return [ts];
    };
    const channel: AnswerChannel = {
      status: {
        set: async (status) => run.display.status(status),
        clear: async () => run.display.clearStatus(),
      },
      answer: {
        append(delta) {
          streamed += delta;
          run.display.append(delta);
        },
        breakParagraph() {
          if (streamed && !streamed.endsWith('\n\n')) streamed += '\n\n';
          breakAt = streamed.length;
          run.display.breakParagraph();
        },
        discardSinceBreak() {
          streamed = streamed.slice(0, breakAt);
          run.display.discardSinceBreak();
        },
        async finish(answer, { note }) {
          // As in Slack: what streamed stays (a preamble, then the answer); otherwise the model's final words.
          const body = streamed.trim() && streamed.trimEnd().endsWith(answer.trim()) ? streamed.trim() : answer.trim();
          const text = [body || '_(The model returned an empty answer.)_', note ? `_${note}_` : ''].filter(Boolean).join('\n\n');
          run.note = note;
          const posted = await post(text);
          run.posted = body;
          run.display.finish(body, note);
          return posted;
        },
        async fail(sentence) {
          const posted = await post(sentence);
          run.display.fail(sentence);
          return posted;
        },
      },
      // A local run is never resumed by another attempt, so it never leaves drafts behind.
      retireDrafts: async () => false,
      // Never asked here: a local run is never parked; approval is asked on the spot (the conversation's approveNow).
      requestApproval: async () => undefined,
      async post(note) {
        await post(note.text);
      },
      ...(options.outputDir ? { output: showingWrittenFiles(createFolderThreadOutput(options.outputDir), run.display) } : {}),
    };
    return channel;
  };

  const threadIds = new Map<string, number>();
  const threadIdOf = async (channelId: string, threadTs: string): Promise<number> => {
    const id = threadIds.get(`${channelId}/${threadTs}`);
    if (id === undefined) throw new Error(`No local thread ${channelId}/${threadTs} was started in this process.`);
    return id;
  };

  async function startConversation(start: StartConversationOptions): Promise<Conversation> {
    const thread = await createFreshThread(db, start.channelId, clock.next());
    threadIds.set(`${thread.channelId}/${thread.threadTs}`, thread.id);

    const post = async (message: { from: Person | 'bot'; text?: string; files?: LocalFile[] }, prefetch: boolean): Promise<PostedMessage> => {
      const author = message.from === 'bot' ? { id: bot.userId, name: bot.name } : message.from;
      names.set(author.id, author.name);
      const files = (message.files ?? []).map((file) => file.object);
      const stored: SlackMessage = {
        ts: clock.next(),
        thread_ts: thread.threadTs,
        user: author.id,
        username: author.name,
        text: message.text ?? '',
        ...(files.length ? { files } : {}),
      };
      await saveThreadMessage(db, thread.id, stored);
      if (files.length === 0) return { ts: stored.ts, files: [] };
      const registered = await registerThreadFiles(db, thread.id, [{ ts: stored.ts, authorName: author.name, files }]);
      if (prefetch && start.prefetch) start.prefetch(thread.id, await threads.messages(thread.channelId, thread.threadTs));
      const keys = new Set(files.map((file) => file.id));
      return { ts: stored.ts, files: registered.filter((file) => file.slackFileId && keys.has(file.slackFileId)) };
    };

    return {
      threadId: thread.id,
      channelId: thread.channelId,
      threadTs: thread.threadTs,
      post: (message) => post(message, true),
      files: () => listThreadFiles(db, thread.id),
      async ask(question, { display = silentDisplay, signal = new AbortController().signal } = {}) {
        // The run reads the files at once; reading them ahead as well would only race it.
        const message = await post(question, false);
        const run = await startUnleasedRun(db, { threadId: thread.id, triggerTs: message.ts, triggerUserId: question.from.id, owner: options.owner });
        const state: ActiveRun = { display };
        active.set(run.id, state);
        const started = performance.now();
        let outcome: RunOutcome;
        try {
          const ended = await start.execute(run, signal);
          outcome = ended.status === 'waiting_approval' ? { status: 'failed', error: 'a tool call needs approval, which a local run cannot wait for' } : ended;
        } catch (error) {
          // The executor reports its own failures as outcomes; this is what it could not (a lost database, a tool
          // call that needed an approval nobody here can give).
          outcome = { status: 'failed', error: messageOf(error) };
        } finally {
          active.delete(run.id);
        }
        if (outcome.status === 'failed' && state.posted === undefined) {
          state.posted = `Sorry — something went wrong on my side while answering (${outcome.error}).`;
          display.fail(state.posted);
        }
        await finishRun(db, run.id, options.owner, outcome);
        const steps = (await listRunSteps(db, run.id)).map(toStepRecord);
        const totals = summarizeRunSteps(steps);
        return {
          runId: run.id,
          threadId: thread.id,
          status: outcome.status,
          answer: state.posted ?? '',
          ...(state.note ? { note: state.note } : {}),
          ...(outcome.error && outcome.status !== 'done' ? { error: outcome.error } : {}),
          model: outcome.model,
          tokens: { input: totals.inputTokens, output: totals.outputTokens, total: totals.inputTokens + totals.outputTokens },
          modelCalls: totals.modelCalls,
          iterations: outcome.iterations ?? 0,
          toolCalls: steps
            .filter((step) => step.kind === 'tool')
            .map((step) => ({
              name: step.name,
              arguments: step.arguments,
              ...(step.error ? { error: step.error } : {}),
              durationMs: step.durationMs,
              ...(step.resultChars !== undefined ? { resultChars: step.resultChars } : {}),
            })),
          skillsLoaded: outcome.skillsLoaded ?? [],
          durationMs: Math.round(performance.now() - started),
        };
      },
    };
  }

  return { threads, answers, startConversation };
}

/** The folder's output, telling the display each file it wrote so the person sees where it is. */
function showingWrittenFiles(output: ThreadOutput, display: AnswerDisplay): ThreadOutput {
  const shown = async (posted: Promise<{ fileId?: string; location?: string }>) => {
    const result = await posted;
    if (result.location) display.wroteFile?.(result.location);
    return result;
  };
  return {
    postImage: (image) => shown(output.postImage(image)),
    attachFile: (file) => shown(output.attachFile(file)),
  };
}

/** A stored step as the loop reported it (the database's nulls back to absent fields). */
function toStepRecord(row: Awaited<ReturnType<typeof listRunSteps>>[number]): RunStepRecord {
  return {
    kind: row.kind,
    name: row.name,
    iteration: row.iteration,
    arguments: row.arguments ?? undefined,
    resultChars: row.resultChars ?? undefined,
    inputTokens: row.inputTokens ?? undefined,
    outputTokens: row.outputTokens ?? undefined,
    durationMs: row.durationMs,
    error: row.error ?? undefined,
  };
}

/**
 * Slack-shaped timestamps ("seconds.micros") from the clock, strictly increasing within the process: two messages
 * in one millisecond still have an order.
 */
function createMessageClock(now: () => number) {
  let last = 0n;
  return {
    next(): string {
      const micros = BigInt(Math.floor(now() * 1000));
      last = micros > last ? micros : last + 1n;
      return `${last / 1_000_000n}.${String(last % 1_000_000n).padStart(6, '0')}`;
    },
  };
}
