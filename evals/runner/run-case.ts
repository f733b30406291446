/**
 * One case through the real pipeline: a fresh thread (local:eval), its people's messages and files posted as they
 * would be in Slack, each question asked and answered by the same run as in Slack, then the last answer checked
 * against the case's criteria (and, when asked for, graded by the judge).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ChatModel } from '../../src/core/chat';
import type { LocalAgent } from '../../src/terminal/local-agent';
import type { AskResult, Person } from '../../src/terminal/local-edge';
import { describeLocalFile, LocalFileError, type LocalFile } from '../../src/terminal/local-file';
import { isLocalFile, type EvalCase } from './case-file';
import { GENERATED_PREFIX, generatedFilePath } from '../fixtures/catalogue';
import { checkExpectations, type CriterionResult } from './criteria';
import { judgeAnswer, type Verdict } from './judge';
import type { ScriptedModel } from './scripted-model';
import { messageOf } from '../../src/core/errors';

/** Where eval threads are stored: apart from the terminal's and from anything Slack has. */
const EVAL_CHANNEL = 'local:eval';

export interface CaseResult {
  name: string;
  file: string;
  result: 'pass' | 'fail' | 'skip';
  /** Failed criteria, one line each starting with the criterion ("facts: …"); for a skip, why. */
  reasons: string[];
  criteria: CriterionResult[];
  /** The LLM judge's verdict, when the case has a `judge` criterion and --judge was given. */
  judge?: Verdict & { model: string };
  /** Over every question of the case. */
  tokens: number;
  modelCalls: number;
  durationMs: number;
  /** The last answer, as the thread got it. */
  answer: string;
  toolCalls: AskResult['toolCalls'];
  skillsLoaded: string[];
  /** Said about the run but not judged: scripted replies left over, say. */
  notes: string[];
}

export interface CaseRunOptions {
  corpusDir: string;
  scripted?: ScriptedModel;
  /** With --judge: the model that grades free-text criteria. */
  judge?: ChatModel;
}

export async function runCase(agent: LocalAgent, evalCase: EvalCase, options: CaseRunOptions): Promise<CaseResult> {
  const base = { name: evalCase.name, file: evalCase.file, criteria: [], tokens: 0, modelCalls: 0, durationMs: 0, answer: '', toolCalls: [], skillsLoaded: [], notes: [] };
  const resolved = await resolveFiles(evalCase, options.corpusDir, agent.maxFileBytes);
  if ('skip' in resolved) return { ...base, result: 'skip', reasons: [resolved.skip] };
  if ('problem' in resolved) return { ...base, result: 'fail', reasons: [`files: ${resolved.problem}`] };
  const files = resolved.files;

  options.scripted?.load(evalCase.script);
  const people = new Map<string, Person>(Object.entries(evalCase.people).map(([key, name]) => [key, { id: `local:${key}`, name }]));
  const conversation = await agent.startConversation(EVAL_CHANNEL);
  for (const message of evalCase.thread) {
    await conversation.post({
      from: message.from === 'threadwise' ? 'bot' : people.get(message.from)!,
      text: message.text,
      files: message.files.map((file) => files.get(file)!),
    });
  }
  const results: AskResult[] = [];
  for (const question of evalCase.ask) {
    results.push(await conversation.ask({ from: people.get(question.from)!, text: question.text, files: question.files.map((file) => files.get(file)!) }));
  }
  const last = results.at(-1)!;
  const criteria = checkExpectations(evalCase.expect, last);
  const notes: string[] = [];
  if (options.scripted) {
    const usage = options.scripted.usage();
    if (usage.unscripted > 0) {
      criteria.push({
        criterion: 'script',
        pass: false,
        detail: `the model was called ${usage.served + usage.unscripted} times and the script has ${usage.served} replies`,
      });
    }
    if (usage.left > 0) notes.push(`${usage.left} scripted ${usage.left === 1 ? 'reply was' : 'replies were'} not used`);
  }

  let judge: CaseResult['judge'];
  if (options.judge && evalCase.judge) {
    if (options.scripted && !evalCase.judge_script) {
      notes.push('not judged: the case has no judge_script for the scripted judge');
    } else {
      if (options.scripted) options.scripted.load([{ text: JSON.stringify(evalCase.judge_script) }]);
      const verdict = await judgeAnswer(options.judge, { criterion: evalCase.judge, question: evalCase.ask.at(-1)!.text, answer: last.answer }).catch(
        (error: unknown) => ({ pass: false, reason: `the judge could not be asked (${messageOf(error)})` }),
      );
      judge = { ...verdict, model: options.judge.name };
    }
  }

  const failed = criteria.filter((c) => !c.pass);
  const reasons = failed.map((c) => `${c.criterion}: ${c.detail}`);
  if (judge && !judge.pass) reasons.push(`judge (LLM, ${judge.model}): ${judge.reason}`);
  return {
    ...base,
    result: reasons.length ? 'fail' : 'pass',
    reasons,
    criteria,
    ...(judge ? { judge } : {}),
    tokens: results.reduce((sum, r) => sum + r.tokens.total, 0),
    modelCalls: results.reduce((sum, r) => sum + r.modelCalls, 0),
    durationMs: results.reduce((sum, r) => sum + r.durationMs, 0),
    answer: last.answer,
    toolCalls: last.toolCalls,
    skillsLoaded: last.skillsLoaded,
    notes,
  };
}

type Resolved = { files: Map<string, LocalFile> } | { skip: string } | { problem: string };

/** Every file the case names, checked and described as the terminal would; generated ones are built, corpus ones need the corpus. */
async function resolveFiles(evalCase: EvalCase, corpusDir: string, maxFileBytes: number): Promise<Resolved> {
  const named = new Set([...evalCase.thread, ...evalCase.ask].flatMap((message) => message.files));
  const files = new Map<string, LocalFile>();
  const corpusPresent = existsSync(corpusDir);
  for (const name of named) {
    const local = isLocalFile(name);
    const generated = name.startsWith(GENERATED_PREFIX);
    const full = generated ? await generatedFilePath(name) : local ? path.resolve(path.dirname(evalCase.file), name) : path.resolve(corpusDir, name);
    if (!local && !generated && !corpusPresent) return { skip: `skipped: no corpus at ${corpusDir} (it has ${name}); --corpus DIR points elsewhere` };
    try {
      files.set(name, await describeLocalFile(full, { maxFileBytes }));
    } catch (error) {
      if (!(error instanceof LocalFileError)) throw error;
      return { problem: `${name}: ${error.message}` };
    }
  }
  return { files };
}
