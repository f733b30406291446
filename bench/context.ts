/**
 * Context figures: what the first request costs with every corpus file attached (metadata + bounded preloads)
 * against stuffing every file's full text in, how fast a 300-message thread with 50 files builds, and what the
 * tool schemas of two ordinary MCP servers cost every request (all offered, against search_tools past the budget).
 */
import { corpusDir } from '../test/support/corpus';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchFigure, BenchSuite } from './figures';
import type { ThreadFile } from '../src/core/thread-file';
import { buildModelMessages, countTokens, type ContextInput } from '../src/context';
import { makeSyntheticThread } from '../test/context/synthetic-thread';
import { messageOf } from '../src/core/errors';
import { createMcpHub } from '../src/mcp';
import { builtInTools } from '../src/tools';
import { createChannelTools } from '../src/tools/channel-tools';
import { createLogger } from '../src/logging/logger';
import { startMcpHttpHost } from '../test/fakes/mcp/http-host';
import { buildFilesServer, createFilesState } from '../test/fakes/mcp/files';
import { buildMemoryServer } from '../test/fakes/mcp/memory';

const CORPUS = corpusDir;
const MODEL = 'gpt-5-mini';
const WINDOW = 400_000; // gpt-5-mini
const PRELOAD_KB = 8; // the PRELOAD_KB default
// Text the registry can preload without an extractor; documents (pdf, docx, html…) are preloaded only once their
// extracted text is cached, which is never the case on a thread's first request.
const DIRECT_TEXT = new Set(['md', 'csv', 'tsv', 'txt', 'json']);
const MIME: Record<string, string> = {
  pdf: 'application/pdf', md: 'text/markdown', csv: 'text/csv', html: 'text/html', png: 'image/png', jpg: 'image/jpeg',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export const contextSuite: BenchSuite = {
  name: 'context',
  async run() {
    return [...(await measureCorpus()), ...measureLongThread(), ...(await measureMcpToolTokens())];
  },
};

function baseInput(overrides: Partial<ContextInput>): ContextInput {
  return {
    botName: 'threadwise', conversation: { channelId: 'C1', threadTs: '1.0', turns: [] }, files: [], preloads: new Map(),
    skills: [
      { name: 'large_files', description: 'Reading big PDFs, DOCX and spreadsheets with peek, search and extract.' },
      { name: 'jira', description: 'Formatting Jira tickets.' }, { name: 'notion', description: 'Formatting Notion pages.' },
      { name: 'slack', description: 'Formatting answers for Slack.' },
    ],
    now: new Date('2026-11-21T12:00:00Z'), timeZone: 'Europe/Berlin', channel: { name: 'support', isDirectMessage: false },
    budget: { contextWindow: WINDOW, reserveForAnswer: 16_000 }, model: MODEL, ...overrides,
  };
}

async function loadCorpus(): Promise<{ files: ThreadFile[]; preloads: Map<string, string>; paths: Map<string, string> }> {
  const pages = new Map<string, number>();
  for (const line of (await readFile(join(CORPUS, 'SOURCES.tsv'), 'utf8')).split('\n').slice(1)) {
    const [name, , count] = line.split('\t');
    if (name && count) pages.set(name, Number(count));
  }
  const names = (await readdir(CORPUS)).filter((n) => n !== 'SOURCES.tsv').sort();
  const files: ThreadFile[] = [];
  const preloads = new Map<string, string>();
  const paths = new Map<string, string>();
  for (const [index, name] of names.entries()) {
    const path = join(CORPUS, name);
    const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
    const id = `F${index + 1}`;
    const sizeBytes = (await stat(path)).size;
    const pageCount = pages.get(name);
    files.push({ id, name, mimeType: MIME[ext] ?? 'application/octet-stream', fileType: ext, sizeBytes, messageTs: '1763726400.000100', authorName: 'Ana', ...(pageCount ? { pageCount } : {}) });
    paths.set(id, path);
    if (DIRECT_TEXT.has(ext)) preloads.set(id, (await readFile(path)).subarray(0, PRELOAD_KB * 1024).toString('utf8').replace(/\uFFFD$/, ''));
  }
  return { files, preloads, paths };
}

async function measureCorpus(): Promise<BenchFigure[]> {
  const { files, preloads, paths } = await loadCorpus();
  const turn = { role: 'user' as const, speaker: 'Ana', speakerId: 'U1', text: 'Here are all our documents: which ones mention budgets?', ts: '1763726400.000100', edited: false, files: files.map((f) => ({ id: f.id, name: f.name })) };
  const built = buildModelMessages(baseInput({ conversation: { channelId: 'C1', threadTs: turn.ts, turns: [turn] }, files, preloads }));
  const { breakdown } = built.report;
  const naive = await countNaiveTokens(files, paths);
  return [
    {
      key: 'context.file_tokens_whole_corpus', value: built.report.fileContextTokens, unit: 'tokens', target: '< 4000',
      note: `${files.length} files: list ${breakdown.filesBlock! - breakdown.preloads!} + preloads ${breakdown.preloads} (${built.report.preloadedFileIds.length} of ${preloads.size} text files, ${PRELOAD_KB} KB each offered, 2,000-token preload share); request total ${built.report.totalTokens}`,
    },
    { key: 'context.naive_tokens_whole_corpus', value: naive.tokens, unit: 'tokens', ...(naive.note ? { note: naive.note } : {}) },
  ];
}

/** Every file's full text, as the extractor reads it (the same reader the bot uses), counted with the same tokenizer. */
async function countNaiveTokens(files: ThreadFile[], paths: Map<string, string>): Promise<{ tokens: number | null; note?: string }> {
  let extractorModule: typeof import('../src/documents');
  try {
    extractorModule = await import('../src/documents');
  } catch (error) {
    return { tokens: null, note: `src/documents not loadable: ${messageOf(error)}` };
  }
  const extractor = extractorModule.createDocumentExtractor({ maxThreads: 2 });
  let tokens = 0;
  const unreadable: string[] = [];
  let images = 0;
  try {
    await Promise.all(files.map(async (file) => {
      if (file.mimeType.startsWith('image/')) return void (images += 1);
      try {
        const document = await extractor.extract({ bytes: new Uint8Array(await readFile(paths.get(file.id)!)), name: file.name, mimeType: file.mimeType });
        tokens += countTokens(document.text, MODEL);
      } catch {
        unreadable.push(file.name);
      }
    }));
  } finally {
    await extractor.close();
  }
  return { tokens, note: `extracted text of ${files.length - images - unreadable.length} files; ${unreadable.length} unreadable and ${images} images count 0` };
}

function measureLongThread(): BenchFigure[] {
  countTokens('warm up the tokenizer', MODEL);
  const thread = makeSyntheticThread(300, 50, 1);
  const input = (t: typeof thread, window = WINDOW) => baseInput({ conversation: { channelId: 'C1', threadTs: '1.0', turns: t.turns }, files: t.files, preloads: t.preloads, budget: { contextWindow: window, reserveForAnswer: 16_000 } });
  const warm: number[] = [];
  for (let i = 0; i < 30; i += 1) warm.push(time(() => buildModelMessages(input(thread))));
  // Fresh threads: no string of them counted before.
  const cold = Array.from({ length: 15 }, (_, i) => makeSyntheticThread(300, 50, i + 2)).map((t) => time(() => buildModelMessages(input(t))));
  const full = buildModelMessages(input(thread));
  const tight = buildModelMessages(input(thread, 32_000));
  const intact = thread.turns.slice(-10).every((turn) => tight.messages.some((m) => {
    const text = typeof m.content === 'string' ? m.content : m.content?.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '';
    return turn.role === 'user' ? text.endsWith(`${turn.speaker}: ${turn.text}`) : text.startsWith(turn.text);
  }));
  return [
    { key: 'context.build_ms_300_messages_50_files', value: median(warm), unit: 'ms', target: '< 30', note: `median of 30 rebuilds; fresh thread (nothing cached) median ${median(cold).toFixed(1)} ms` },
    { key: 'context.build_ms_300_messages_50_files_cold', value: median(cold), unit: 'ms', target: '< 30', note: 'median over 15 never-seen threads (every string counted for the first time)' },
    { key: 'context.tokens_300_messages', value: full.report.totalTokens, unit: 'tokens', target: `≤ ${full.report.availableTokens}`, note: `whole thread fits the ${WINDOW.toLocaleString('en-US')}-token window; dropped ${full.report.droppedTurns}` },
    { key: 'context.tokens_300_messages_32k_window', value: tight.report.totalTokens, unit: 'tokens', target: `≤ ${tight.report.availableTokens}`, note: `32k window: ${tight.report.droppedTurns} oldest turns dropped with a note` },
    { key: 'context.newest_turns_intact_300_messages', value: intact ? 1 : 0, unit: '', target: '1', note: 'last 10 turns verbatim under the 32k window' },
  ];
}

/**
 * Two MCP servers enabled in a channel — shaped like the official filesystem (14 tools) and memory (9 tools)
 * servers, served over HTTP on loopback — and the tool schemas a request carries for them: every one (as before
 * issue 32), against what is offered now (search_tools; found tools join only the run that searched).
 */
export async function measureMcpToolTokens(): Promise<BenchFigure[]> {
  const hosts = await Promise.all([startMcpHttpHost({ createServer: () => buildFilesServer(createFilesState()) }), startMcpHttpHost({ createServer: () => buildMemoryServer() })]);
  const hub = await createMcpHub(
    {
      servers: [
        { name: 'fs', transport: { kind: 'http', url: hosts[0].url, headers: {}, sseOnly: false }, approval: 'ask', autoApprove: [], disabledTools: [], timeoutMs: 60_000 },
        { name: 'memory', transport: { kind: 'http', url: hosts[1].url, headers: {}, sseOnly: false }, approval: 'ask', autoApprove: [], disabledTools: [], timeoutMs: 60_000 },
      ],
      secrets: [],
    },
    { logger: createLogger({ level: 'error', write: () => {} }), startWaitMs: 30_000 },
  );
  try {
    const builtIn = new Set(builtInTools().map((tool) => tool.name));
    const mcpTools = hub.tools('C1');
    const allSpecs = mcpTools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
    const registry = createChannelTools(builtInTools(), hub)('C1');
    const offered = registry.specs().filter((spec) => !builtIn.has(spec.name)).map((spec) => ({ type: 'function', function: spec }));
    const before = countTokens(JSON.stringify(allSpecs), MODEL);
    const after = countTokens(JSON.stringify(offered), MODEL);
    // One search in a run: its result (5 tools with their parameters) and their schemas in that run's next requests.
    const search = registry.get('search_tools');
    const found = search ? await search.execute({ query: 'write a file' }, { recordActivity: () => {} } as never) : '';
    const grown = registry.specs().filter((spec) => !builtIn.has(spec.name)).map((spec) => ({ type: 'function', function: spec }));
    const bytes = (value: unknown) => `${(Buffer.byteLength(JSON.stringify(value)) / 1024).toFixed(1)} KB`;
    return [
      {
        key: 'context.mcp_tool_tokens', value: after, unit: 'tokens', target: '< 1000',
        note: `two servers enabled (fs 14 + memory 9 tools, as the official filesystem and memory servers): ${offered.map((s) => s.function.name).join(', ')} (${bytes(offered)}) offered in every request, the rest found by search; before: ${before} tokens (${bytes(allSpecs)})`,
      },
      { key: 'context.mcp_tool_tokens_all_offered', value: before, unit: 'tokens', note: `the same ${mcpTools.length} tools all offered in every request, as before search_tools (${bytes(allSpecs)})` },
      {
        key: 'context.mcp_tool_tokens_after_one_search', value: countTokens(JSON.stringify(grown), MODEL) + countTokens(found, MODEL), unit: 'tokens',
        note: 'a run that searched once ("write a file"): the result it read plus the 5 found tools offered in its later requests',
      },
    ];
  } finally {
    await hub.close();
    await Promise.all(hosts.map((host) => host.close()));
  }
}

function time(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
