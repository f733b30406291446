/**
 * An eval case, as written under evals/cases/ (YAML or JSON): a thread (people, messages, files), the question or
 * questions asked in it, what a good answer must do, an optional free-text criterion for an LLM judge, and the
 * replies a scripted model gives (`npm run eval -- --scripted`, what CI runs). Every problem in a case file is one
 * line naming the file and the field.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { messageOf } from '../../src/core/errors';
import { GENERATED_PREFIX, generatedFileNames, isGeneratedFile } from '../fixtures/catalogue';

const text = z.string().min(1);
/** Words to find in an answer; a bare number in YAML (502) means its digits. */
const phrase = z.union([text, z.number().transform(String)]);

/**
 * A file of the thread: "generated:<name>", a document the project's fixture builders make (evals/fixtures); "./…"
 * beside the case file; or else a path in the corpus folder (real documents by others, the corpus tier).
 */
const files = z.array(text).default([]);

const message = z.object({
  /** A key of `people`, or "threadwise" for an earlier answer of the bot. */
  from: text.default('ana'),
  text: z.string().default(''),
  files,
});

const question = z.union([text.transform((value) => ({ from: 'ana', text: value, files: [] as string[] })), message.extend({ text })]);

/** A scripted model reply: tool calls, or the answer text. */
const scriptedReply = z.union([
  z.object({
    tool_calls: z.array(z.object({ name: text, arguments: z.record(z.string(), z.unknown()).default({}) })).min(1),
    text: z.string().optional(),
  }),
  z.object({ text: z.string() }),
]);

/** Either of several words, tools or pages: a list stands for "any one of these". */
const anyOf = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1)]);

const expectations = z
  .object({
    /** The run's status: done unless the case is about a failure. */
    status: z.enum(['done', 'failed', 'cancelled']).default('done'),
    /** Tools the agent must call ("search_file|ask_file": either). */
    calls: z.array(text).default([]),
    /** Tools it must not call. */
    no_calls: z.array(text).default([]),
    /** File ids it must open with some tool (comparing documents means reading each). */
    reads: z.array(text).default([]),
    /** Skills it must load. */
    skills: z.array(text).default([]),
    /** Phrases the answer must contain, as written (case and spacing aside). */
    contains: z.array(phrase).default([]),
    /** Facts the answer must state: each one phrasing, or a list of phrasings any of which will do. */
    facts: z.array(anyOf(phrase)).default([]),
    /** Phrases the answer must not contain. */
    not_contains: z.array(phrase).default([]),
    /** Pages (or slides) the answer must cite: each a number, or a list of numbers any of which will do. */
    cites: z.array(anyOf(z.number().int().positive())).default([]),
    max_model_calls: z.number().int().positive().optional(),
    max_tokens: z.number().int().positive().optional(),
  })
  .strict();

const caseSchema = z
  .object({
    name: text.optional(),
    description: z.string().default(''),
    tags: z.array(text).default([]),
    /** Who talks in the thread, by key; "ana" is there unless renamed. */
    people: z.record(text, text).default({}),
    thread: z.array(message).default([]),
    ask: z.union([question, z.array(question).min(1)]),
    expect: expectations.default(expectations.parse({})),
    /** A free-text criterion for the LLM judge (npm run eval -- --judge). */
    judge: text.optional(),
    /** The scripted model's replies, one per model call, in order (the bot's and ask_file's calls alike). */
    script: z.array(scriptedReply).default([]),
    /** The scripted judge's verdict. */
    judge_script: z.object({ pass: z.boolean(), reason: text }).optional(),
  })
  .strict();

export type ScriptedReply = z.output<typeof scriptedReply>;
export type Expectations = z.output<typeof expectations>;

export interface EvalCase extends Omit<z.output<typeof caseSchema>, 'ask' | 'name'> {
  name: string;
  /** The case file, for messages and for files beside it. */
  file: string;
  ask: Array<z.output<typeof message>>;
}

/** A case file that cannot be used; the message names the file and what is wrong. */
export class CaseFileError extends Error {
  override readonly name = 'CaseFileError';
}

const CASE_FILE = /\.(ya?ml|json)$/i;

/** Every case under `dir` (recursively), sorted by name; throws CaseFileError listing every bad file. */
export async function loadCases(dir: string): Promise<EvalCase[]> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { recursive: true })).filter((entry) => CASE_FILE.test(entry)).sort();
  } catch (error) {
    throw new CaseFileError(`there is no cases folder at ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  const problems: string[] = [];
  const cases: EvalCase[] = [];
  for (const entry of entries) {
    const file = path.join(dir, entry);
    try {
      cases.push(parseCase(await readFile(file, 'utf8'), file));
    } catch (error) {
      problems.push(messageOf(error));
    }
  }
  const seen = new Map<string, string>();
  for (const evalCase of cases) {
    const other = seen.get(evalCase.name);
    if (other) problems.push(`${evalCase.file}: the name "${evalCase.name}" is already used by ${other}`);
    seen.set(evalCase.name, evalCase.file);
  }
  if (problems.length) throw new CaseFileError(problems.join('\n'));
  return cases;
}

export function parseCase(source: string, file: string): EvalCase {
  let raw: unknown;
  try {
    raw = file.toLowerCase().endsWith('.json') ? JSON.parse(source) : parseYaml(source);
  } catch (error) {
    throw new CaseFileError(`${file}: not valid ${file.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML'} (${messageOf(error).split('\n')[0]})`);
  }
  const parsed = caseSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`);
    throw new CaseFileError(`${file}: ${issues.join('; ')}`);
  }
  const data = parsed.data;
  const people = { ana: 'Ana', ...data.people };
  const ask = Array.isArray(data.ask) ? data.ask : [data.ask];
  for (const [where, m] of [...data.thread.map((m, i) => [`thread.${i}`, m] as const), ...ask.map((m, i) => [`ask.${i}`, m] as const)]) {
    if (m.from !== 'threadwise' && !(m.from in people)) {
      throw new CaseFileError(`${file}: ${where}.from: "${m.from}" is not one of people (${Object.keys(people).join(', ')}) nor "threadwise"`);
    }
  }
  for (const [i, m] of ask.entries()) if (m.from === 'threadwise') throw new CaseFileError(`${file}: ask.${i}.from: threadwise answers questions, it does not ask them`);
  for (const [where, m] of [...data.thread.map((m, i) => [`thread.${i}`, m] as const), ...ask.map((m, i) => [`ask.${i}`, m] as const)]) {
    const unknown = m.files.find((name) => name.startsWith(GENERATED_PREFIX) && !isGeneratedFile(name));
    if (unknown) throw new CaseFileError(`${file}: ${where}.files: "${unknown}" is not a generated file (they are: ${generatedFileNames().join(', ')})`);
  }
  return { ...data, people, ask, name: data.name ?? path.basename(file).replace(CASE_FILE, ''), file };
}

/** The corpus files a case names (neither generated nor beside the case): a case with any is in the corpus tier. */
export function corpusFilesOf(evalCase: EvalCase): string[] {
  return [...evalCase.thread, ...evalCase.ask].flatMap((m) => m.files).filter((name) => !isLocalFile(name) && !name.startsWith(GENERATED_PREFIX));
}

export function isLocalFile(name: string): boolean {
  return name.startsWith('./') || name.startsWith('../');
}
