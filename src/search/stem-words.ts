import { sql } from 'drizzle-orm';
import { createBoundedCache, type BoundedCache } from '../core/bounded-cache';
import { rowsOf, type Database } from '../store/database';
import { STEMMED_CONFIGS } from '../text/language';

/**
 * The word's tsvectors in every configuration, merged (|| keeps each lexeme once): one expression per word rather
 * than a join over configurations, which costs PGlite twice as much for the same lexemes.
 */
const ALL_CONFIGS = sql.raw(['simple', ...STEMMED_CONFIGS].map((config) => `to_tsvector('${config}'::regconfig, w.word)`).join(' || '));

/** Query words → the lexemes that stand for each (a word the stemmers drop maps to an empty list). */
export type Stemmer = (words: readonly string[]) => Promise<Map<string, string[]>>;

/**
 * Each query word as the database's stemmers write it, in every configuration a chunk may have been indexed with
 * (simple and all stemmed ones): the lexemes that stand for the word in any document. Stemming is PostgreSQL's
 * (the same Snowball stemmers that indexed the chunks), asked once per word and remembered by this stemmer: words
 * recur from search to search ("Satz", "total", "2019"), so most searches ask the database nothing at all.
 */
export function createStemmer(db: Database): Stemmer {
  const cache = createBoundedCache<string, string[]>({ maxEntries: 20_000, ttlMs: 24 * 60 * 60_000 });
  return (words) => stemWords(db, cache, words);
}

async function stemWords(db: Database, cache: BoundedCache<string, string[]>, words: readonly string[]): Promise<Map<string, string[]>> {
  const stems = new Map<string, string[]>();
  const missing: string[] = [];
  for (const word of new Set(words)) {
    const known = cache.get(word);
    if (known) stems.set(word, known);
    else missing.push(word);
  }
  if (missing.length === 0) return stems;
  const result = await db.execute(sql`
    select w.word, tsvector_to_array(${ALL_CONFIGS}) as lexemes
    from jsonb_array_elements_text(${JSON.stringify(missing)}::jsonb) as w(word)
  `);
  for (const { word, lexemes } of rowsOf<{ word: string; lexemes: string[] | string | null }>(result)) {
    const list = parseLexemes(lexemes);
    cache.set(word, list);
    stems.set(word, list);
  }
  return stems;
}

/** A text[] as the driver hands it over: an array (postgres.js, PGlite) or, untyped, its literal "{a,b}". */
function parseLexemes(value: string[] | string | null): string[] {
  if (value === null) return [];
  if (Array.isArray(value)) return value;
  const inner = value.replace(/^\{|\}$/g, '');
  if (!inner) return [];
  return Array.from(inner.matchAll(/"((?:[^"\\]|\\.)*)"|([^,]+)/g), (m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!));
}
