/**
 * `.env` in the working directory, read at start by `npm start`, `npm run chat` and `npm run eval` with Node's own
 * loader (process.loadEnvFile): a variable already set in the environment wins over the file. Node's parser never
 * complains — a line without "=" silently becomes part of the next line's name — so each line is checked first, and
 * a malformed one is one sentence naming the file and the line (never its text: it may hold a secret).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { codeOf, messageOf } from '../core/errors';

export type EnvFileResult = { ok: true; path?: string } | { ok: false; problem: string };

/** Loads `dir`/.env into process.env when there is one; variables already set are kept. */
export function loadEnvFile(dir: string = process.cwd()): EnvFileResult {
  const file = path.join(dir, '.env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') return { ok: true };
    if (code === 'EISDIR') return { ok: false, problem: `${file} is a folder, not a settings file: remove it or make it a file of NAME=value lines` };
    return { ok: false, problem: `could not read ${file} (${code ?? messageOf(error)}): make it readable by this user, or remove it` };
  }
  const problem = checkEnvText(text);
  if (problem) return { ok: false, problem: `${file} line ${problem.line} ${problem.what}` };
  process.loadEnvFile(file);
  return { ok: true, path: file };
}

const ASSIGNMENT = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=(.*)$/;

/** The first line Node's loader would misread, and what is wrong with it; undefined when every line is fine. */
export function checkEnvText(text: string): { line: number; what: string } | undefined {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const assignment = ASSIGNMENT.exec(line);
    if (!assignment) {
      return { line: index + 1, what: 'is not NAME=value: write each setting on its own line as NAME=value (e.g. PORT=3000), or start the line with # to comment it out' };
    }
    const value = assignment[1]!.trim();
    const quote = value[0];
    if (quote !== '"' && quote !== "'" && quote !== '`') continue;
    if (value.indexOf(quote, 1) > 0) continue;
    // A quoted value may run over several lines; it must close somewhere.
    const closing = lines.findIndex((later, at) => at > index && later.includes(quote));
    if (closing < 0) return { line: index + 1, what: `opens a ${quote} quote that is never closed: end the value with ${quote}` };
    index = closing;
  }
  return undefined;
}
