/**
 * `npm run eval` against its scripted model, as CI runs it: every shipped case runs through the real pipeline and
 * passes; a case whose scripted answer is wrong fails with a reason naming the criterion; --baseline says what got
 * worse; the LLM judge's verdict is reported as the judge's.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFilesOf, loadCases } from '../../evals/runner/case-file';
import { corpus } from '../support/corpus';
import { REPO } from '../terminal/support/chat-process';

const CASES = path.join(REPO, 'evals/cases');

function runEval(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'eval', '--', ...args], {
      cwd: REPO,
      // No model variables at all: --scripted needs none. The corpus is where the tests look for it.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CORPUS_DIR: corpus.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run eval -- --scripted', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'threadwise-eval-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A shipped case copied into a folder of its own, changed by `edit`. */
  async function caseCopy(name: string, folder: string, edit: (evalCase: Record<string, any>) => void, as = name): Promise<string> {
    const source = parseYaml(await readFile(path.join(CASES, `${name}.yaml`), 'utf8')) as Record<string, any>;
    edit(source);
    const target = path.join(dir, folder);
    await mkdir(target, { recursive: true });
    await writeFile(path.join(target, `${as}.yaml`), stringifyYaml(source));
    return target;
  }

  it(
    'runs every shipped case it can through the pipeline, and every one passes: without the corpus, at least 20 over generated documents',
    async () => {
      const cases = await loadCases(CASES);
      const runnable = corpus.present ? cases : cases.filter((c) => corpusFilesOf(c).length === 0);
      expect(runnable.length).toBeGreaterThanOrEqual(20);
      const out = path.join(dir, 'all.json');
      const { code, stdout, stderr } = await runEval(['--scripted', '--out', out]);

      expect(code, `${stdout}\n${stderr}`).toBe(0);
      expect(stdout).toContain(`Total: ${runnable.length} of ${runnable.length} passed`);
      if (!corpus.present) expect(stdout).toMatch(/^corpus tier left out \(\d+ cases\): no corpus at .*evals\/fixtures\/corpus-sources\.tsv$/m);
      const run = JSON.parse(await readFile(out, 'utf8'));
      expect(run.cases.map((c: { name: string }) => c.name).sort()).toEqual(runnable.map((c) => c.name).sort());
      expect(run.totals).toMatchObject({ cases: runnable.length, passed: runnable.length, failed: 0, skipped: 0 });
      // Through the real pipeline: the deep-page case searched the generated notes and its answer cites the page.
      const deep = run.cases.find((c: { name: string }) => c.name === 'pdf-deep-page-lecture-notes');
      expect(deep.toolCalls.map((call: { name: string }) => call.name)).toEqual(['search_file']);
      expect(deep.tokens).toBeGreaterThan(0);
    },
    600_000,
  );

  it('leaves the corpus tier out in one line when the corpus is not where it is said to be', async () => {
    const missing = path.join(dir, 'no-corpus-here');
    const { code, stdout, stderr } = await runEval(['--scripted', '--corpus', missing, '--case', 'long-thread-early-message', '--case', 'pdf-chinese-report', '--out', path.join(dir, 'tier.json')]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const notice = stdout.split('\n').filter((line) => line.startsWith('corpus tier left out'));
    expect(notice).toEqual([expect.stringMatching(new RegExp(`^corpus tier left out \\(1 case\\): no corpus at ${missing}\\. It is \\d+ real documents by others, .*\\(from .*jsvine/pdfplumber.*\\); set CORPUS_DIR to its folder\\. Where each file comes from, and its licence: `))]);
    expect(stdout).toContain('Total: 1 of 1 passed');
    expect(stdout).not.toContain('pdf-chinese-report');
  }, 240_000);

  it('fails a case whose answer is wrong, naming the criterion, and --baseline shows it got worse', async () => {
    const good = await caseCopy('long-thread-early-message', 'good', () => {});
    const bad = await caseCopy('long-thread-early-message', 'bad', (evalCase) => {
      evalCase.script = [{ text: 'Ben owns the rollback; the call is at 03:00 UTC.' }];
    });
    const baseline = path.join(dir, 'baseline.json');
    const before = await runEval(['--scripted', '--cases', good, '--out', baseline]);
    expect(before.code, before.stdout + before.stderr).toBe(0);
    expect(before.stdout).toContain('Total: 1 of 1 passed');

    const after = await runEval(['--scripted', '--cases', bad, '--out', path.join(dir, 'after.json'), '--baseline', baseline]);
    expect(after.code).toBe(1);
    expect(after.stdout).toMatch(/long-thread-early-message\s+FAIL\s+facts: the answer does not state "Dara"/);
    expect(after.stdout).toContain('- facts: the answer does not state "01:30" or "1:30"');
    expect(after.stdout).toContain('passed 1 → 0; better: none; worse: long-thread-early-message');
    expect(after.stdout).toMatch(/- long-thread-early-message: now FAILS: facts: /);
  }, 240_000);

  it('fails a case whose script runs out, and reports the LLM judge apart as the judge', async () => {
    await caseCopy('long-thread-early-message', 'judged', (evalCase) => {
      evalCase.judge = 'The answer names the person who owns the rollback.';
      evalCase.judge_script = { pass: false, reason: 'It names nobody.' };
    }, 'judged');
    const folder = await caseCopy('long-thread-early-message', 'judged', (evalCase) => {
      evalCase.script = [];
    }, 'exhausted');
    const run = await runEval(['--scripted', '--judge', '--cases', folder, '--out', path.join(dir, 'judged.json')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^exhausted\s+FAIL\s+status: the run ended failed/m);
    expect(run.stdout).toContain('- script: the model was called 1 times and the script has 0 replies');
    expect(run.stdout).toContain('- judge (LLM, scripted): It names nobody.');
    expect(run.stdout).toContain('Judge (LLM — an opinion, not a checked criterion):');
  }, 240_000);

  it('refuses a broken case file with a line naming the file and the field', async () => {
    const broken = path.join(dir, 'broken');
    await mkdir(broken, { recursive: true });
    await writeFile(path.join(broken, 'typo.yaml'), 'ask: What is it?\nexpect:\n  fatcs: [x]\n');
    const { code, stderr } = await runEval(['--scripted', '--cases', broken]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/threadwise eval: .*typo\.yaml: expect: Unrecognized key: "fatcs"/);
  }, 60_000);
});
