/**
 * ask_file's reader: answers one question about one large file in a model context of its own, so the main
 * conversation receives a compact, cited answer instead of the file. It searches first (the question, plus queries the
 * model writes in the file's own language), reads the passages that fit its budget in batches (map), and combines
 * what each batch yielded (reduce). A file small enough is read whole. Every model call and search is reported
 * through `recordStep`, so the run's totals include what the reader cost.
 */
import { createSlots, type Slots } from '../../core/slots';
import { mapConcurrently } from '../../core/map-concurrently';
import { gatherPassages, openingPassages, wholeDocumentPassages, type Passage } from './gather-passages';
import { packPassages } from './pack-passages';
import { tokenCounterFor } from '../../search/text-units';
import type { ExtractedDocument, ThreadFile } from '../../core/thread-file';
import type { SubAgentRunner } from '../tool';
import type { ThreadFileAccess } from '../../files/thread-file-access';
import {
  answerPrompt,
  combinePrompt,
  describeReading,
  notesPrompt,
  parseQueries,
  planPrompt,
} from './reader-prompts';
import type { ChatMessage, ChatModel } from '../../core/chat';
import type { RunStepRecord } from '../../core/run-step';
import { messageOf } from '../../core/errors';

interface FileSubAgentLimits {
  /** A file up to this many tokens is read whole, in one call. */
  wholeFileTokens: number;
  /** Tokens of excerpts per model call. */
  batchTokens: number;
  /** Model calls at most, planning and combining included (the iteration cap). */
  maxModelCalls: number;
  /** Input plus output tokens over all of this reader's calls. */
  maxTokens: number;
  /** Hits taken from each search. */
  hitsPerQuery: number;
  /** Readers running at once in this process; more wait their turn. Used when no `slots` are given. */
  maxConcurrent: number;
}

const DEFAULT_SUB_AGENT_LIMITS: FileSubAgentLimits = {
  wholeFileTokens: 12_000,
  batchTokens: 6_000,
  maxModelCalls: 6,
  maxTokens: 60_000,
  hitsPerQuery: 8,
  maxConcurrent: 3,
};

export interface FileSubAgentOptions {
  model: ChatModel;
  files: ThreadFileAccess;
  limits?: Partial<FileSubAgentLimits>;
  recordStep: (step: RunStepRecord) => void;
  /** Shared by every reader of the process (default); tests pass their own. */
  slots?: Slots;
}

// One semaphore per process: "compare these three contracts" starts three readers in one turn, and several threads
// may do so at once; the model endpoint and memory see at most maxConcurrent of them.
let processSlots: Slots | undefined;

export function createFileSubAgent(options: FileSubAgentOptions): SubAgentRunner {
  const limits = { ...DEFAULT_SUB_AGENT_LIMITS, ...options.limits };
  const slots = options.slots ?? (processSlots ??= createSlots(limits.maxConcurrent));
  return {
    async askFile(fileId, question, signal) {
      const release = await slots.acquire(signal);
      try {
        return await readAndAnswer({ ...options, limits }, fileId, question.trim(), signal);
      } finally {
        release();
      }
    },
  };
}

interface Reader {
  model: ChatModel;
  files: ThreadFileAccess;
  limits: FileSubAgentLimits;
  recordStep: (step: RunStepRecord) => void;
}

async function readAndAnswer(reader: Reader, fileId: string, question: string, signal: AbortSignal): Promise<string> {
  const file = reader.files.get(fileId);
  const budget = createBudget(reader, file, signal);
  const document = await budget.tool('read_file', () => reader.files.readText(file.id, signal));
  const countTokens = tokenCounterFor(reader.model.name);
  const whole = fitsWhole(document, reader.limits.wholeFileTokens, countTokens);
  let passages: Passage[];
  if (whole) {
    passages = wholeDocumentPassages(document);
  } else {
    const queries = [question, ...(await planQueries(budget, file, document, question))];
    passages = await gatherPassages(reader.files, file.id, queries, {
      hitsPerQuery: reader.limits.hitsPerQuery,
      signal,
      onSearch: (query, ms, error) => budget.recordTool('search_file', ms, error, { query }),
    });
    // Nothing matched ("what is this file about?"): the opening pages say what the document is.
    if (passages.length === 0) passages = openingPassages(document, reader.limits.batchTokens * 2);
  }
  const { batches, left } = packPassages(passages, {
    // A file that fits whole is read in one call; excerpts of a larger one in batches.
    tokensPerBatch: whole ? reader.limits.wholeFileTokens + 1_000 : reader.limits.batchTokens,
    maxBatches: Math.max(1, reader.limits.maxModelCalls - (whole ? 1 : 3)),
    countTokens,
  });
  if (batches.length === 0) return `${file.name} has no text to read for this question.`;
  const answer =
    batches.length === 1
      ? await budget.call(answerPrompt(file, question, batches[0]!))
      : await combine(budget, file, question, batches);
  return `${answer.trim()}\n\n${describeReading(file, batches.flat(), left, whole)}`;
}

async function combine(budget: Budget, file: ThreadFile, question: string, batches: Passage[][]): Promise<string> {
  const notes = await mapConcurrently(batches, 2, async (batch, i) =>
    budget.affords(batch) ? budget.call(notesPrompt(file, question, batch, i + 1, batches.length)) : undefined,
  );
  const useful = notes.filter((n): n is string => !!n && !/^\s*NOTHING RELEVANT\s*$/i.test(n));
  if (useful.length === 0) return `The parts of ${file.name} I read do not answer this question.`;
  return budget.call(combinePrompt(file, question, useful));
}

async function planQueries(budget: Budget, file: ThreadFile, document: ExtractedDocument, question: string) {
  return parseQueries(await budget.call(planPrompt(file, document, question)));
}

function fitsWhole(document: ExtractedDocument, maxTokens: number, countTokens: (text: string) => number): boolean {
  // Counting tokens of a 5 MB text costs more than it tells: past ~3 characters a token it cannot fit.
  if (document.text.length > maxTokens * 6) return false;
  return countTokens(document.text) <= maxTokens;
}

interface Budget {
  call(messages: ChatMessage[]): Promise<string>;
  affords(batch: Passage[]): boolean;
  tool<T>(name: string, work: () => Promise<T>): Promise<T>;
  recordTool(name: string, ms: number, error?: unknown, args?: unknown): void;
}

/** Counts this reader's calls and tokens, stops at its caps, and reports each step. */
function createBudget(reader: Reader, file: ThreadFile, signal: AbortSignal): Budget {
  let calls = 0;
  let tokens = 0;
  let iteration = 0;
  const recordTool = (name: string, durationMs: number, error?: unknown, args?: unknown) =>
    reader.recordStep({ kind: 'subagent_tool', name, iteration: ++iteration, durationMs, arguments: args, ...(error ? { error: messageOf(error) } : {}) });
  return {
    affords: (batch) =>
      calls < reader.limits.maxModelCalls - 1 &&
      tokens + batch.reduce((n, p) => n + p.text.length / 3, 0) < reader.limits.maxTokens,
    async call(messages) {
      if (calls >= reader.limits.maxModelCalls || tokens >= reader.limits.maxTokens) {
        throw new Error(`The reader of ${file.name} used up its budget (${calls} model calls, ${tokens} tokens) before answering.`);
      }
      calls += 1;
      const started = Date.now();
      try {
        const response = await reader.model.complete({ messages, signal });
        tokens += response.usage.inputTokens + response.usage.outputTokens;
        reader.recordStep({ kind: 'subagent_model', name: reader.model.name, iteration: ++iteration, durationMs: Date.now() - started, ...response.usage });
        return response.text ?? '';
      } catch (error) {
        reader.recordStep({ kind: 'subagent_model', name: reader.model.name, iteration: ++iteration, durationMs: Date.now() - started, error: messageOf(error) });
        throw new Error(`The reader of ${file.name} could not finish: ${messageOf(error)}`, { cause: error });
      }
    },
    async tool(name, work) {
      const started = Date.now();
      try {
        const result = await work();
        recordTool(name, Date.now() - started);
        return result;
      } catch (error) {
        recordTool(name, Date.now() - started, error);
        throw error;
      }
    },
    recordTool,
  };
}
