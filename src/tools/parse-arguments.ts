import type { z } from 'zod';

export type ParsedArguments<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Model-written JSON → validated arguments. Lenient about the mistakes models make (code fences, trailing commas,
 * an empty string for "no arguments"), strict about the shape; a failure is a sentence the model can act on.
 */
export function parseToolArguments<T>(raw: string, schema: z.ZodType<T>): ParsedArguments<T> {
  const json = parseLenientJson(raw);
  if (json === undefined) {
    return { ok: false, problem: `invalid arguments: not valid JSON (${truncate(raw, 200)}). Send a JSON object.` };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  const details = result.error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
  return { ok: false, problem: `invalid arguments: ${details}` };
}

export function parseLenientJson(raw: string): unknown {
  const text = raw.trim();
  if (text === '') return {};
  for (const candidate of [text, repair(text)]) {
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next, more repaired form
    }
  }
  return undefined;
}

function repair(text: string): string {
  return text
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '')
    .replace(/,\s*([}\]])/g, '$1');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
