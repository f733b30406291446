import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Database } from '../store/database';
import type { Expansion } from './document-vocabulary';
import type { QueryTerms } from './query-terms';
import { STEMMED_CONFIGS } from '../text/language';

export interface RankedChunk {
  id: number;
  score: number;
  /** The chunk itself, read by the ranking statement: the rerank and the hits need no second round trip. */
  row: ChunkRow;
}

export interface ChunkRow {
  id: number;
  contentHash: string;
  text: string;
  location: string;
  page: number | null;
  start: number;
  end: number;
}

/** BM25's usual constants; b is lower than the textbook 0.75 because chunks are already of similar length. */
const K1 = 1.2;
const B = 0.5;
/** CJK bigram terms score this share of a word term: a two-character name carries less than a whole word. */
const BIGRAM_WEIGHT = 0.6;
/** A lexeme as a tsquery operand: quoted, with quotes and backslashes escaped, so no lexeme reads as an operator. */
const QUOTED_LEXEME = sql.raw(`'''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || ''''`);

/**
 * Full-text ranking of the chunks of some documents, inside the database. Matching uses the tsvectors (`tsv` for
 * words, `cjk_tsv` for bigrams) and their GIN indexes; scoring is BM25 over the matching chunks, because
 * ts_rank/ts_rank_cd know nothing of how rare a word is, and for questions in natural language the rare words
 * ("Hausdorff", "17221") are what find the passage. Any term may match (OR), and chunks matching more and rarer
 * terms rank first, so there is no empty AND result to fall back from.
 *
 * Each query word is expanded into its lexeme in every configuration (simple and all stemmed ones) and counts as
 * one term whichever of those matches: the chunk was stemmed in one language, and the query does not need to know
 * which.
 */
export async function rankByFullText(
  db: Database,
  contentHashes: string[],
  terms: QueryTerms,
  limit: number,
  expansions: Expansion[] = [],
): Promise<RankedChunk[]> {
  if (contentHashes.length === 0 || (terms.words.length === 0 && terms.bigrams.length === 0)) return [];
  const result = await db.execute(rankingQuery(contentHashes, terms, limit, expansions));
  type Row = { id: number | string; score: number | string; content_hash: string; text: string; location: string; page: number | null; start_offset: number; end_offset: number };
  return rowsOf<Row>(result).map((row) => ({
    id: Number(row.id),
    score: Number(row.score),
    row: {
      id: Number(row.id),
      contentHash: row.content_hash,
      text: row.text,
      location: row.location,
      page: row.page === null ? null : Number(row.page),
      start: Number(row.start_offset),
      end: Number(row.end_offset),
    },
  }));
}

/** The ranking statement on its own, so it can be explained (EXPLAIN ANALYZE) as well as run. */
function rankingQuery(contentHashes: string[], terms: QueryTerms, limit: number, expansions: Expansion[] = []): SQL {
  const configs = JSON.stringify(['simple', ...STEMMED_CONFIGS]);
  const hashes = toArrayLiteral(contentHashes);
  // A fuzzy lexeme counts for its query word (a chunk with both is not counted twice); a compound part is a term of
  // its own. Word terms are numbered from 1, parts from 2000, bigrams from 1000 (below).
  const extra = JSON.stringify(expansions.map((e) => ({
    term: e.part ? 2000 + e.word * 10 + e.part : e.word + 1,
    lexeme: e.lexeme,
    weight: e.weight,
  })));
  return sql`
    with words as (
      select w.ord::int as term, w.word
      from jsonb_array_elements_text(${JSON.stringify(terms.words)}::jsonb) with ordinality as w(word, ord)
    ),
    exact as (
      select distinct w.term, lex.lexeme, false as cjk, 1::float8 as weight
      from words w
      cross join jsonb_array_elements_text(${configs}::jsonb) as cfg(name)
      cross join lateral unnest(tsvector_to_array(to_tsvector(cfg.name::regconfig, w.word))) as lex(lexeme)
      union all
      -- a bare number in the text may have been read as a signed integer ("2020-17221" → '2020', '-17221')
      select w.term, '-' || w.word, false, 1 from words w where w.word ~ '^[0-9]+$'
      union all
      select (1000 + g.ord)::int, g.gram, true, 1
      from jsonb_array_elements_text(${JSON.stringify(terms.bigrams)}::jsonb) with ordinality as g(gram, ord)
    ),
    alternatives as (
      select * from exact
      union all
      select e.term, e.lexeme, false, e.weight
      from jsonb_to_recordset(${extra}::jsonb) as e(term int, lexeme text, weight float8)
      where not exists (select 1 from exact x where x.lexeme = e.lexeme and not x.cjk)
    ),
    queries as (
      select
        (select string_agg(${QUOTED_LEXEME}, ' | ') from alternatives where not cjk)::tsquery as words,
        (select string_agg(${QUOTED_LEXEME}, ' | ') from alternatives where cjk)::tsquery as grams,
        (select array_agg(lexeme) from alternatives where not cjk) as word_lexemes,
        (select array_agg(lexeme) from alternatives where cjk) as gram_lexemes
    ),
    -- The GIN indexes find the matching chunks; only those are unnested.
    matched_words as (
      select id, tokens, tsv from chunks
      where content_hash = any(${hashes}::text[]) and tsv @@ (select words from queries)
    ),
    matched_grams as (
      select id, tokens, cjk_tsv from chunks
      where content_hash = any(${hashes}::text[]) and cjk_tsv @@ (select grams from queries)
    ),
    stats as (
      select count(*)::float8 as n, greatest(avg(tokens), 1)::float8 as avg_tokens
      from chunks where content_hash = any(${hashes}::text[])
    ),
    -- Each matching chunk's query lexemes with their counts: marked with weight A, then filtered on it (PostgreSQL
    -- has no "keep these lexemes"). Mapped to terms in one join afterwards, not one per chunk.
    lexeme_counts as (
      select m.id, m.tokens, u.lexeme, false as cjk, cardinality(u.positions)::float8 as tf
      from matched_words m cross join queries q
      cross join lateral unnest(ts_filter(setweight(m.tsv, 'A', q.word_lexemes), '{a}')) as u
      union all
      select m.id, m.tokens, u.lexeme, true, cardinality(u.positions)::float8
      from matched_grams m cross join queries q
      cross join lateral unnest(ts_filter(setweight(m.cjk_tsv, 'A', q.gram_lexemes), '{a}')) as u
    ),
    frequencies as (
      select c.id, c.tokens, a.term, a.cjk, max(c.tf) as tf, max(a.weight) as weight
      from lexeme_counts c join alternatives a on a.lexeme = c.lexeme and a.cjk = c.cjk
      group by c.id, c.tokens, a.term, a.cjk
    ),
    weighted as (
      select f.*, count(*) over (partition by f.term)::float8 as df from frequencies f
    ),
    scored as (
      select w.id, sum(
        case when w.cjk then ${constant(BIGRAM_WEIGHT)} else w.weight end
        * ln(1 + (st.n - w.df + 0.5) / (w.df + 0.5))
        * w.tf * ${constant(K1 + 1)} / (w.tf + ${constant(K1)} * (1 - ${constant(B)} + ${constant(B)} * w.tokens / st.avg_tokens))
      ) as score
      from weighted w cross join stats st
      group by w.id
      order by score desc, w.id
      limit ${limit}
    )
    -- The chunks themselves come along (a few dozen): the rerank and the hits read them from here.
    select s.id, s.score, c.content_hash, c.text, c.location, c.page, c.start_offset, c.end_offset
    from scored s join chunks c on c.id = s.id
    order by s.score desc, s.id
  `;
}

/** A number written into the SQL: as a parameter its type would be guessed as integer. */
function constant(value: number) {
  return sql.raw(`${Number(value)}::float8`);
}

/** A PostgreSQL array literal, so the whole list travels as one parameter on both drivers. */
export function toArrayLiteral(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}
