import { parse as parseYaml } from 'yaml';
import type { SkillSummary } from './types';
import { messageOf } from '../core/errors';

export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
/** Descriptions ride along in every prompt; a long one costs tokens on every turn of every thread. */
export const MAX_DESCRIPTION_CHARS = 500;

const KNOWN_KEYS = new Set(['name', 'description', 'when_to_use']);
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

interface ParsedSkillFile {
  summary: SkillSummary;
  body: string;
  /** Paths the body names inside its own folder ("jira/templates/bug.md"); each must exist. */
  references: string[];
}

export type ParseSkillResult =
  | { ok: true; skill: ParsedSkillFile; warnings: string[] }
  /** declaredName is kept even when invalid, so duplicates across folders can still be named. */
  | { ok: false; problems: string[]; declaredName?: string };

/**
 * Validates one SKILL.md. Pure: the caller reads the file and names it in messages. Every problem is collected,
 * not just the first, so a broken file is fixed in one pass.
 */
export function parseSkillFile(text: string, folder: string): ParseSkillResult {
  const source = text.replace(/^\uFEFF/, '');
  const match = FRONT_MATTER.exec(source);
  if (!match) {
    return fail('has no front matter — start the file with a `---` line, then `name:` and `description:` lines, then `---`');
  }

  let data: unknown;
  try {
    data = parseYaml(match[1] ?? '');
  } catch (error) {
    const reason = messageOf(error).split('\n')[0]!;
    return fail(`front matter is not valid YAML (${reason})`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return fail('front matter must be `key: value` lines (name, description, when_to_use)');
  }
  const fields = data as Record<string, unknown>;
  const problems: string[] = [];
  const warnings: string[] = [];

  const name = fields.name;
  if (name === undefined || name === null || name === '') {
    problems.push(`front matter has no \`name\` — add \`name: ${folder}\` (it must match the folder name)`);
  } else if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name)) {
    problems.push(
      `name \`${String(name)}\` is not valid — use lowercase letters, digits, \`_\` or \`-\`, starting with a letter or digit`,
    );
  } else if (name !== folder) {
    problems.push(`name \`${name}\` does not match its folder \`${folder}\` — rename one so they agree`);
  }

  const description = normaliseText(fields.description);
  if (fields.description !== undefined && fields.description !== null && typeof fields.description !== 'string') {
    problems.push('`description` must be text — one line saying when to use the skill');
  } else if (!description) {
    problems.push('front matter has no `description` — add one line saying when to use the skill');
  } else if (description.length > MAX_DESCRIPTION_CHARS) {
    problems.push(
      `description is ${description.length} characters — keep it under ${MAX_DESCRIPTION_CHARS}; it goes into every prompt, the details belong in the body`,
    );
  }

  const whenToUse = normaliseText(fields.when_to_use);
  if (fields.when_to_use !== undefined && fields.when_to_use !== null && typeof fields.when_to_use !== 'string') {
    problems.push('`when_to_use` must be text');
  }

  const body = source.slice(match[0].length).trim();
  if (!body) problems.push('has nothing after the front matter — the body is what load_skill returns');

  for (const key of Object.keys(fields)) {
    if (!KNOWN_KEYS.has(key)) warnings.push(`front matter key \`${key}\` is not used (known keys: name, description, when_to_use)`);
  }

  if (problems.length) return { ok: false, problems, declaredName: typeof name === 'string' ? name : undefined };
  const summary: SkillSummary = { name: name as string, description: description as string };
  if (whenToUse) summary.whenToUse = whenToUse;
  return { ok: true, skill: { summary, body, references: findReferences(body, folder) }, warnings };
}

function fail(problem: string): ParseSkillResult {
  return { ok: false, problems: [problem] };
}

/** YAML folded or multi-line strings come back with newlines; the prompt wants one line. */
function normaliseText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/\s+/g, ' ').trim();
  return text || undefined;
}

/**
 * The convention for naming a further file: write its path from the skills folder, starting with the skill's own
 * name, in backticks or as a link target — `jira/templates/bug.md`. That is exactly what load_skill accepts, so
 * the model can copy it, and the loader can check at start that every named file exists.
 */
function findReferences(body: string, folder: string): string[] {
  const prefix = escapeRegExp(`${folder}/`);
  const pattern = new RegExp(`(?:\`|\\]\\()(${prefix}[^\`\\s)]+)(?:\`|\\))`, 'g');
  const found = new Set<string>();
  for (const match of body.matchAll(pattern)) {
    const path = match[1];
    if (path && !path.endsWith('/')) found.add(path);
  }
  return [...found];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
