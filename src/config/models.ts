/** A current, capable and inexpensive OpenAI model with tools and vision. */
export const DEFAULT_MODEL = 'gpt-5-mini';

/**
 * Context windows of well-known models, by name prefix (longest match wins). Anything else — a local model behind
 * OPENAI_BASE_URL — gets a conservative 32k unless CONTEXT_WINDOW says otherwise.
 */
const KNOWN_WINDOWS: Array<[prefix: string, tokens: number]> = [
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-3.5-turbo', 16_385],
];

export function contextWindowFor(model: string): number {
  const match = KNOWN_WINDOWS.filter(([prefix]) => model.startsWith(prefix)).sort((a, b) => b[0].length - a[0].length)[0];
  return match ? match[1] : 32_768;
}
