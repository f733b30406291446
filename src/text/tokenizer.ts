/**
 * Real token counts with gpt-tokenizer, the encoding picked by model name. Counting is on the hot path (every
 * request re-counts a whole thread), so results are cached per string: a thread rebuilt for its next turn renders
 * the same strings for its earlier turns, and those become map look-ups instead of BPE runs.
 */
import { createRequire } from 'node:module';

export type EncodingName = 'o200k_base' | 'cl100k_base';

/** The part of a gpt-tokenizer encoding module we use. */
interface Encoding {
  encode(text: string, options?: EncodeOptions): number[];
  decode(tokens: Iterable<number>): string;
  countTokens(text: string, options?: EncodeOptions): number;
  isWithinTokenLimit(text: string, limit: number, options?: EncodeOptions): false | number;
}
interface EncodeOptions {
  disallowedSpecial?: Set<string>;
}

// User text may contain "<|endoftext|>"; as text it must be counted, not rejected.
const AS_PLAIN_TEXT: EncodeOptions = { disallowedSpecial: new Set() };

// Older OpenAI chat models use cl100k; everything newer (and anything unknown, e.g. a local model behind
// OPENAI_BASE_URL, where o200k is the closer approximation of a modern vocabulary) uses o200k.
const CL100K_MODELS = /(^|[/:])(gpt-4(?![o.\d])|gpt-3\.5|text-embedding-(ada|3)|davinci|babbage)/;

export function selectEncoding(model: string): EncodingName {
  return CL100K_MODELS.test(model.toLowerCase()) ? 'cl100k_base' : 'o200k_base';
}

// Loaded on first use: each table costs 60–150 ms and tens of MB, and most processes only ever need one.
const require = createRequire(import.meta.url);
const encodings = new Map<EncodingName, Encoding>();

export function loadEncoding(name: EncodingName): Encoding {
  let encoding = encodings.get(name);
  if (!encoding) {
    encoding = require(`gpt-tokenizer/cjs/encoding/${name}`) as Encoding;
    encodings.set(name, encoding);
  }
  return encoding;
}

/**
 * Loads the model's encoding ahead of need. Reading its table blocks the event loop once, for 150–250 ms (the longest
 * stall the load bench found in a running bot); called once the bot is up, that falls before the first question
 * rather than on its answer.
 */
export function preloadEncoding(model: string): void {
  loadEncoding(selectEncoding(model));
}

/** Tokens of text under the model's encoding (no chat-message overhead). */
export function countTokens(text: string, model: string): number {
  if (text.length === 0) return 0;
  const name = selectEncoding(model);
  const cache = caches[name];
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const count = loadEncoding(name).countTokens(text, AS_PLAIN_TEXT);
  cache.set(text, count);
  return count;
}

/** Whether text fits in `limit` tokens; stops encoding as soon as it does not (a 1 MB result costs little). */
export function isWithinTokens(text: string, limit: number, model: string): boolean {
  const name = selectEncoding(model);
  const cached = caches[name].get(text);
  if (cached !== undefined) return cached <= limit;
  const count = loadEncoding(name).isWithinTokenLimit(text, limit, AS_PLAIN_TEXT);
  // Within the limit it was counted whole: keep the count for the countTokens call that usually follows.
  if (count !== false) caches[name].set(text, count);
  return count !== false;
}

/** Token ids of text, special-token look-alikes treated as plain text. */
export function encodeText(text: string, model: string): number[] {
  return loadEncoding(selectEncoding(model)).encode(text, AS_PLAIN_TEXT);
}

export function decodeTokens(tokens: number[], model: string): string {
  return loadEncoding(selectEncoding(model)).decode(tokens);
}

/**
 * Two generations instead of a true LRU: cheap to maintain, bounded, and strings still in use are promoted back
 * into the young generation on their next hit.
 */
class CountCache {
  private young = new Map<string, number>();
  private old = new Map<string, number>();
  private youngChars = 0;

  constructor(private readonly maxChars: number) {}

  get(text: string): number | undefined {
    const hit = this.young.get(text);
    if (hit !== undefined) return hit;
    const oldHit = this.old.get(text);
    if (oldHit !== undefined) this.set(text, oldHit);
    return oldHit;
  }

  set(text: string, count: number): void {
    // Very large strings (a whole file) are rarely counted twice and would evict everything else.
    if (text.length > this.maxChars / 8) return;
    if (this.youngChars + text.length > this.maxChars) {
      this.old = this.young;
      this.young = new Map();
      this.youngChars = 0;
    }
    this.young.set(text, count);
    this.youngChars += text.length;
  }
}

// About 16 M characters per encoding at most (two generations of 8 M): a few hundred long threads.
const caches: Record<EncodingName, CountCache> = {
  o200k_base: new CountCache(8_000_000),
  cl100k_base: new CountCache(8_000_000),
};
