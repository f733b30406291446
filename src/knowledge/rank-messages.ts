/**
 * Full-text ranking of indexed messages inside the database, as search_file ranks chunks (search/rank-full-text.ts):
 * each query word expanded into its lexeme in every text-search configuration, CJK bigrams matched on their own
 * vector, BM25 over the matching messages. The scope — the channels the asker may read, the dates, the authors — is
 * part of every clause, statistics included, so nothing outside it is ranked, counted or limited against.
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Database } from '../store/database';
import { toArrayLiteral } from '../search/rank-full-text';
import type { QueryTerms } from '../search/query-terms';
import { STEMMED_CONFIGS } from '../text/language';

export interface MessageScope {
  /** Channels searched: only those the asker may read. Empty → nothing. */
  channelIds: readonly string[];
  since?: Date;
  until?: Date;
  /** Slack user ids (or bot ids) of the authors; undefined → anyone. */
  authorIds?: readonly string[];
}

export interface RankedMessage {
  channelId: string;
  ts: string;
  score: number;
}

/** BM25's constants, as for chunks; b low because Slack messages are short and of similar length. */
const K1 = 1.2;
const B = 0.3;
const BIGRAM_WEIGHT = 0.6;
const QUOTED_LEXEME = sql.raw(`'''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || ''''`);

export async function rankMessages(db: Database, scope: MessageScope, terms: QueryTerms, limit: number): Promise<RankedMessage[]> {
  if (scope.channelIds.length === 0 || limit <= 0 || (terms.words.length === 0 && terms.bigrams.length === 0)) return [];
  const result = await db.execute(messageRankingQuery(scope, terms, limit));
  return rowsOf<{ channel_id: string; ts: string; score: number | string }>(result).map((row) => ({
    channelId: row.channel_id,
    ts: row.ts,
    score: Number(row.score),
  }));
}

/** The scope as a WHERE condition on indexed_messages. */
export function scopeCondition(scope: MessageScope): SQL {
  const parts = [sql`channel_id = any(${toArrayLiteral([...scope.channelIds])}::text[])`, sql`not deleted`];
  if (scope.since) parts.push(sql`posted_at >= ${scope.since.toISOString()}::timestamptz`);
  if (scope.until) parts.push(sql`posted_at < ${scope.until.toISOString()}::timestamptz`);
  if (scope.authorIds) parts.push(sql`user_id = any(${toArrayLiteral([...scope.authorIds])}::text[])`);
  return sql.join(parts, sql` and `);
}

export function messageRankingQuery(scope: MessageScope, terms: QueryTerms, limit: number): SQL {
  const configs = JSON.stringify(['simple', ...STEMMED_CONFIGS]);
  const where = scopeCondition(scope);
  return sql`
    with words as (
      select w.ord::int as term, w.word
      from jsonb_array_elements_text(${JSON.stringify(terms.words)}::jsonb) with ordinality as w(word, ord)
    ),
    alternatives as (
      select distinct w.term, lex.lexeme, false as cjk
      from words w
      cross join jsonb_array_elements_text(${configs}::jsonb) as cfg(name)
      cross join lateral unnest(tsvector_to_array(to_tsvector(cfg.name::regconfig, w.word))) as lex(lexeme)
      union all
      select (1000 + g.ord)::int, g.gram, true
      from jsonb_array_elements_text(${JSON.stringify(terms.bigrams)}::jsonb) with ordinality as g(gram, ord)
    ),
    queries as (
      select
        (select string_agg(${QUOTED_LEXEME}, ' | ') from alternatives where not cjk)::tsquery as words,
        (select string_agg(${QUOTED_LEXEME}, ' | ') from alternatives where cjk)::tsquery as grams,
        (select array_agg(lexeme) from alternatives where not cjk) as word_lexemes,
        (select array_agg(lexeme) from alternatives where cjk) as gram_lexemes
    ),
    matched_words as (
      select channel_id, ts, tokens, tsv from indexed_messages
      where ${where} and tsv @@ (select words from queries)
    ),
    matched_grams as (
      select channel_id, ts, tokens, cjk_tsv from indexed_messages
      where ${where} and cjk_tsv @@ (select grams from queries)
    ),
    stats as (
      select count(*)::float8 as n, greatest(avg(tokens), 1)::float8 as avg_tokens from indexed_messages where ${where}
    ),
    lexeme_counts as (
      select m.channel_id, m.ts, m.tokens, u.lexeme, false as cjk, cardinality(u.positions)::float8 as tf
      from matched_words m cross join queries q
      cross join lateral unnest(ts_filter(setweight(m.tsv, 'A', q.word_lexemes), '{a}')) as u
      union all
      select m.channel_id, m.ts, m.tokens, u.lexeme, true, cardinality(u.positions)::float8
      from matched_grams m cross join queries q
      cross join lateral unnest(ts_filter(setweight(m.cjk_tsv, 'A', q.gram_lexemes), '{a}')) as u
    ),
    frequencies as (
      select c.channel_id, c.ts, c.tokens, a.term, a.cjk, max(c.tf) as tf
      from lexeme_counts c join alternatives a on a.lexeme = c.lexeme and a.cjk = c.cjk
      group by c.channel_id, c.ts, c.tokens, a.term, a.cjk
    ),
    weighted as (
      select f.*, count(*) over (partition by f.term)::float8 as df from frequencies f
    )
    select w.channel_id, w.ts, sum(
      case when w.cjk then ${constant(BIGRAM_WEIGHT)} else 1::float8 end
      * ln(1 + (st.n - w.df + 0.5) / (w.df + 0.5))
      * w.tf * ${constant(K1 + 1)} / (w.tf + ${constant(K1)} * (1 - ${constant(B)} + ${constant(B)} * w.tokens / st.avg_tokens))
    ) as score
    from weighted w cross join stats st
    group by w.channel_id, w.ts
    order by score desc, w.ts desc
    limit ${limit}
  `;
}

function constant(value: number) {
  return sql.raw(`${Number(value)}::float8`);
}
