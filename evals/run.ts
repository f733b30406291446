/**
 * `npm run eval -- [--scripted] [--judge] [--case NAME]… [--cases DIR] [--corpus DIR] [--out FILE] [--baseline FILE]`
 *
 * Runs every case under evals/cases through the real pipeline (app/local.ts: the bot's run, files, context, skills,
 * tools and loop, with a fresh in-memory database) against the configured model — or, with --scripted, against
 * each case's scripted replies (what CI runs: it tests the harness and the pipeline, not a model). Prints a table
 * and a total, writes the run as JSON, and compares it with an earlier JSON (--baseline). Exits 1 when a case
 * failed, 2 when the command line or a case file is wrong.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createChatModel } from '../src/app/create-chat-model';
import { openLocalThreadwise } from '../src/app/local';
import { StartupError } from '../src/app/startup-error';
import { loadEnvFile, loadLocalConfig } from '../src/config';
import { createLogger } from '../src/logging/logger';
import { CaseFileError, corpusFilesOf, loadCases } from './runner/case-file';
import { removeGeneratedFiles } from './fixtures/catalogue';
import { corpusDirectory, corpusTierNotice, isCorpusAt } from './fixtures/corpus';
import { compareWithBaseline, formatTable, summarise, type EvalRun } from './runner/report';
import { runCase, type CaseResult } from './runner/run-case';
import { startScriptedModel, type ScriptedModel } from './runner/scripted-model';
import { messageOf } from '../src/core/errors';
import { deferWasmOptimisationDuringStart } from '../src/runtime/wasm-tiering';

// Before the embedded database's WebAssembly is compiled (src/runtime/wasm-tiering.ts says why).
const startIsOver = deferWasmOptimisationDuringStart();

const USAGE = `Usage: npm run eval -- [--scripted] [--judge] [--case NAME]… [--cases DIR] [--corpus DIR] [--out FILE] [--baseline FILE]

  --scripted        answer with each case's scripted replies instead of a model (CI); no model variables needed
  --judge           also grade each case's free-text "judge:" criterion with an LLM (EVAL_JUDGE_MODEL, else OPENAI_MODEL)
  --case NAME       run only cases whose name or tag contains NAME (repeatable)
  --cases DIR       the cases folder (default evals/cases)
  --corpus DIR      where corpus files are found (default CORPUS_DIR, else ../shared/corpus beside the repository)
  --out FILE        write the run as JSON there (default evals/results/<time>-<model>.json)
  --baseline FILE   compare with an earlier run's JSON: what got better or worse`;

const repo = fileURLToPath(new URL('..', import.meta.url));
function fail(code: number, sentence: string): never {
  process.stderr.write(`threadwise eval: ${sentence}\n`);
  process.exit(code);
}

let args;
try {
  args = parseArgs({
    args: process.argv.slice(2),
    options: {
      scripted: { type: 'boolean', default: false },
      judge: { type: 'boolean', default: false },
      case: { type: 'string', multiple: true },
      cases: { type: 'string' },
      corpus: { type: 'string' },
      out: { type: 'string' },
      baseline: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }).values;
} catch (error) {
  fail(2, `${messageOf(error).split('.')[0]}. ${USAGE}`);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const cwd = process.env.INIT_CWD ?? process.cwd();
const casesDir = path.resolve(cwd, args.cases ?? path.join(repo, 'evals/cases'));
const corpusDir = args.corpus ? path.resolve(cwd, args.corpus) : corpusDirectory(process.env.CORPUS_DIR?.trim() || process.env.EVAL_CORPUS_DIR?.trim() || undefined);

let cases;
try {
  cases = await loadCases(casesDir);
} catch (error) {
  if (!(error instanceof CaseFileError)) throw error;
  fail(2, error.message);
}
const wanted = (args.case ?? []).map((name) => name.toLowerCase());
const matching = wanted.length ? cases.filter((c) => wanted.some((w) => c.name.toLowerCase().includes(w) || c.tags.some((tag) => tag.toLowerCase() === w))) : cases;
if (matching.length === 0) fail(2, `no case in ${casesDir} matches ${wanted.join(', ') || 'anything'}.`);
// The corpus tier (cases over real documents by others) runs where the corpus is, and is left out in one line where not.
const corpusTier = isCorpusAt(corpusDir) ? [] : matching.filter((c) => corpusFilesOf(c).length > 0);
const selected = matching.filter((c) => !corpusTier.includes(c));
if (corpusTier.length) process.stdout.write(`${corpusTierNotice(`${corpusTier.length} case${corpusTier.length === 1 ? '' : 's'}`, corpusDir)}\n`);
if (selected.length === 0) fail(2, `every case that matches ${wanted.join(', ') || 'anything'} is in the corpus tier, and there is no corpus at ${corpusDir}.`);

let baseline: EvalRun | undefined;
if (args.baseline) {
  try {
    baseline = JSON.parse(await readFile(path.resolve(cwd, args.baseline), 'utf8')) as EvalRun;
    if (baseline.version !== 1 || !Array.isArray(baseline.cases)) throw new Error('it is not the JSON of an eval run');
  } catch (error) {
    fail(2, `cannot compare with ${args.baseline}: ${messageOf(error)}.`);
  }
}

// .env in the project folder, as for `npm start`; the environment wins over it.
const envFile = loadEnvFile();
if (!envFile.ok) fail(2, envFile.problem);
let scripted: ScriptedModel | undefined;
let env = process.env;
if (args.scripted) {
  scripted = await startScriptedModel();
  // The scripted server answers for the model; nothing of a real endpoint's settings applies.
  const { OPENAI_API_KEY: _key, OPENAI_EMBEDDING_MODEL: _embeddings, CONTEXT_WINDOW: _window, ...rest } = process.env;
  env = { ...rest, OPENAI_BASE_URL: scripted.url, OPENAI_MODEL: 'scripted', CONTEXT_WINDOW: '128000', AGENT_STRATEGY: 'function_calling' };
}
const loaded = loadLocalConfig(env);
if (!loaded.ok) {
  for (const problem of loaded.problems) process.stderr.write(`threadwise eval: ${problem}\n`);
  await scripted?.close();
  process.exit(2);
}
const config = loaded.config;
const logger = createLogger({ level: process.env.LOG_LEVEL?.trim() ? config.logLevel : 'error', secrets: [config.model.apiKey] });

let agent;
try {
  agent = await openLocalThreadwise(config, {
    logger,
    database: 'memory',
    // A scripted reply is what it is: waiting and asking again would only hide a script that ran out.
    retry: scripted ? { policy: { maxRetries: 0 } } : undefined,
  });
} catch (error) {
  await scripted?.close();
  if (!(error instanceof StartupError)) throw error;
  fail(1, error.message);
}
startIsOver();
const judge = args.judge
  ? createChatModel({ ...config.model, name: args.scripted ? config.model.name : (process.env.EVAL_JUDGE_MODEL?.trim() || config.model.name) }, logger, {
      retry: scripted ? { policy: { maxRetries: 0 } } : undefined,
    })
  : undefined;

const startedAt = new Date();
const results: CaseResult[] = [];
let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  process.stderr.write('\nthreadwise eval: stopping after this case (Ctrl-C again to stop at once)\n');
});
try {
  for (const [index, evalCase] of selected.entries()) {
    if (interrupted) break;
    process.stderr.write(`[${index + 1}/${selected.length}] ${evalCase.name} … `);
    // A case that breaks the runner (not the run: that is a failed criterion) is reported, and the others still run.
    const result = await runCase(agent, evalCase, { corpusDir, scripted, judge }).catch((error: unknown) => brokenCase(evalCase, error));
    results.push(result);
    process.stderr.write(`${result.result}${result.result === 'skip' ? ` (${result.reasons[0]})` : ` (${(result.durationMs / 1000).toFixed(1)} s)`}\n`);
  }
} finally {
  await agent.close();
  await scripted?.close();
  await removeGeneratedFiles();
}

const run = summarise(results, { startedAt: startedAt.toISOString(), model: config.model.name, scripted: Boolean(scripted), judged: Boolean(judge) });
process.stdout.write(`${formatTable(run, process.stdout.columns ?? 120)}\n`);
const out = path.resolve(cwd, args.out ?? path.join(repo, 'evals/results', `${startedAt.toISOString().replace(/[:.]/g, '-')}-${slug(run.scripted ? 'scripted' : run.model)}.json`));
await mkdir(path.dirname(out), { recursive: true });
await writeFile(out, `${JSON.stringify(run, null, 2)}\n`);
process.stdout.write(`\nWrote ${path.relative(cwd, out) || out}\n`);
if (baseline && args.baseline) process.stdout.write(`\n${compareWithBaseline(run, baseline, args.baseline).text}\n`);
process.exit(run.totals.failed > 0 || interrupted ? 1 : 0);

function brokenCase(evalCase: { name: string; file: string }, error: unknown): CaseResult {
  logger.error('an eval case could not be run', { case: evalCase.name, error });
  return {
    name: evalCase.name,
    file: evalCase.file,
    result: 'fail',
    reasons: [`error: the case could not be run (${messageOf(error)})`],
    criteria: [],
    tokens: 0,
    modelCalls: 0,
    durationMs: 0,
    answer: '',
    toolCalls: [],
    skillsLoaded: [],
    notes: [],
  };
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/^-|-$/g, '');
}
