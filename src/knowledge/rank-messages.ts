/**
 * Full-text ranking of indexed messages, with search_file's analysis (search/rank-full-text.ts): each query word
 * expanded into its lexeme in every text-search configuration, CJK bigrams matched on their own vector, BM25 over the
 * matching messages. The scope — the channels the asker may read, the dates, the authors — is part of every clause,
 * so nothing outside it is ranked, counted or limited against.
 *
 * Slack messages are short, so a word occurs in a message once as a rule: each term scores its IDF once per message
 * that holds it, with the usual length normalisation, and nothing is unnested. Common words ("deploy", "password")
 * match thousands of messages; when a query has some, only the messages holding a rare word or two of the common ones
 * are read (see candidateQuery), which is what keeps a search of 100,000 messages fast.
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
/** CJK bigram terms score this share of a word term, as for chunks. */
const BIGRAM_WEIGHT = 0.6;
/** A lexeme in at least this share of messages is common (PostgreSQL's statistics of the tsv column say which). */
const COMMON_SHARE = 0.002;

interface WordTerm {
  /** The word's lexemes in every configuration: a message holds the term when it holds any of them. */
  lexemes: string[];
  /** Set for a common word: its document frequency, estimated from its share. */
  estimatedDf?: number;
}

/**
 * Several phrasings of one question ranked in one transaction (one list each, for fusion): the statistics, the word
 * expansions and the planner setting are shared.
 */
export async function rankMessagesForPhrasings(
  db: Database,
  scope: MessageScope,
  phrasings: readonly QueryTerms[],
  limit: number,
  /** Fewer hits than this through the common-word shortcut → every match is ranked. Default: limit. */
  enough = limit,
): Promise<RankedMessage[][]> {
  const empty = phrasings.map(() => [] as RankedMessage[]);
  if (scope.channelIds.length === 0 || limit <= 0) return empty;
  const stats = await scopeStatistics(db, scope.channelIds);
  if (stats.messages === 0) return empty;
  const expanded = await expandWords(db, [...new Set(phrasings.flatMap((terms) => terms.words))]);
  const toWords = (terms: QueryTerms): WordTerm[] =>
    terms.words
      .map((word) => expanded.get(word) ?? [])
      .filter((lexemes) => lexemes.length > 0)
      .map((lexemes) => {
        const share = Math.max(0, ...lexemes.map((lexeme) => stats.lexemeShares.get(lexeme) ?? 0));
        return share >= COMMON_SHARE ? { lexemes, estimatedDf: Math.max(1, share * stats.messages) } : { lexemes };
      });
  // The planner prices a tsquery match far below what it costs and reads the whole table once a few percent of it
  // match; the GIN index is always the cheaper way to the matching messages.
  return db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    await t.execute(sql`set local enable_seqscan = off`);
    const lists: RankedMessage[][] = [];
    for (const terms of phrasings) {
      const words = toWords(terms);
      if (words.length === 0 && terms.bigrams.length === 0) {
        lists.push([]);
        continue;
      }
      const run = async (candidates?: string) =>
        rowsOf<{ channel_id: string; ts: string; score: number | string }>(await t.execute(messageRankingQuery(scope, words, terms.bigrams, limit, stats, candidates))).map(
          (row) => ({ channelId: row.channel_id, ts: row.ts, score: Number(row.score) }),
        );
      const candidates = candidateQuery(words);
      const ranked = candidates === undefined ? await run() : await run(candidates);
      // Too few messages hold a rare word or two common ones: every message holding any word is ranked after all.
      lists.push(candidates !== undefined && ranked.length < Math.min(enough, limit) ? await run() : ranked);
    }
    return lists;
  });
}

/**
 * Which messages to rank when some query words are common: those holding a rare word, or two of the common ones. A
 * message holding one common word alone scores below them, so the best hits stay the same while the thousands of
 * messages that merely mention "deploy" are never read. Undefined when every word is rare (all matches are ranked)
 * or when a single common word is all there is (it must be read in full).
 */
function candidateQuery(words: readonly WordTerm[]): string | undefined {
  const common = words.filter((w) => w.estimatedDf !== undefined);
  const rare = words.filter((w) => w.estimatedDf === undefined);
  if (common.length === 0 || (common.length === 1 && rare.length === 0)) return undefined;
  const group = (w: WordTerm) => `(${anyOf(w.lexemes)})`;
  const parts = rare.map(group);
  for (let i = 0; i < common.length; i += 1) {
    for (let j = i + 1; j < common.length; j += 1) parts.push(`(${group(common[i]!)} & ${group(common[j]!)})`);
  }
  return parts.join(' | ');
}

/** The scope as a WHERE condition on indexed_messages. */
function scopeCondition(scope: MessageScope): SQL {
  const parts = [sql`channel_id = any(${toArrayLiteral([...scope.channelIds])}::text[])`, sql`not deleted`];
  if (scope.since) parts.push(sql`posted_at >= ${scope.since.toISOString()}::timestamptz`);
  if (scope.until) parts.push(sql`posted_at < ${scope.until.toISOString()}::timestamptz`);
  if (scope.authorIds) parts.push(sql`user_id = any(${toArrayLiteral([...scope.authorIds])}::text[])`);
  return sql.join(parts, sql` and `);
}

/**
 * One pass over what the GIN indexes find (words on tsv, bigrams on cjk_tsv): each matching message with which terms
 * it holds, each rare term's document frequency counted over those (all its messages are among them), then BM25 and
 * only the best `limit` rows out of the database.
 */
function messageRankingQuery(
  scope: MessageScope,
  words: readonly WordTerm[],
  bigrams: readonly string[],
  limit: number,
  stats: ScopeStatistics,
  candidates?: string,
): SQL {
  const where = scopeCondition(scope);
  const count = words.length + bigrams.length;
  const indexes = Array.from({ length: count }, (_, i) => i);
  const flag = (i: number) => sql.raw(`t${i}`);
  const df = (i: number) => sql.raw(`d${i}`);
  const parts: SQL[] = [];
  if (words.length > 0) {
    const flags = indexes.map((i) => (i < words.length ? sql`tsv @@ ${anyOf(words[i]!.lexemes)}::tsquery as ${flag(i)}` : sql`false as ${flag(i)}`));
    const matching = candidates ?? anyOf(words.flatMap((w) => w.lexemes));
    parts.push(sql`select channel_id, ts, tokens, ${sql.join(flags, sql`, `)} from indexed_messages where ${where} and tsv @@ ${matching}::tsquery`);
  }
  if (bigrams.length > 0) {
    const flags = indexes.map((i) => (i < words.length ? sql`false as ${flag(i)}` : sql`cjk_tsv @@ ${anyOf([bigrams[i - words.length]!])}::tsquery as ${flag(i)}`));
    parts.push(sql`select channel_id, ts, tokens, ${sql.join(flags, sql`, `)} from indexed_messages where ${where} and cjk_tsv @@ ${anyOf(bigrams)}::tsquery`);
  }
  // A message with both words and CJK text comes from both halves: merged into one row.
  const matched =
    parts.length === 1
      ? parts[0]!
      : sql`select channel_id, ts, tokens, ${sql.join(indexes.map((i) => sql`bool_or(${flag(i)}) as ${flag(i)}`), sql`, `)} from (${parts[0]!} union all ${parts[1]!}) as halves group by channel_id, ts, tokens`;
  const idf = (i: number) => {
    const estimated = i < words.length ? words[i]!.estimatedDf : undefined;
    const d = estimated === undefined ? sql`f.${df(i)}` : constant(estimated);
    return sql`${constant(i < words.length ? 1 : BIGRAM_WEIGHT)} * ln(1 + greatest(${constant(stats.messages)} - ${d} + 0.5, 0.5) / (${d} + 0.5))`;
  };
  const norm = sql`${constant(K1 + 1)} / (1 + ${constant(K1)} * (1 - ${constant(B)} + ${constant(B)} * m.tokens / ${constant(stats.averageWords)}))`;
  return sql`
    with m as materialized (${matched}),
    f as (select ${sql.join(indexes.map((i) => sql`count(*) filter (where ${flag(i)})::float8 as ${df(i)}`), sql`, `)} from m)
    select m.channel_id, m.ts, (${sql.join(indexes.map((i) => sql`case when m.${flag(i)} then ${idf(i)} else 0 end`), sql` + `)}) * ${norm} as score
    from m cross join f
    order by score desc, m.ts desc
    limit ${limit}
  `;
}

/** A tsquery of alternatives: any of these lexemes, each quoted so none reads as an operator. */
function anyOf(lexemes: readonly string[]): string {
  return lexemes.map((lexeme) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`).join(' | ');
}

function constant(value: number) {
  return sql.raw(`${Number(value)}::float8`);
}

/**
 * Each query word's lexemes in every text-search configuration (simple and every stemmed one), as search_file
 * expands them: a message was stemmed in one language and the query need not know which. Cached per word: the
 * expansion never changes.
 */
const expansionCache = new Map<string, string[]>();
const MAX_CACHED_WORDS = 20_000;

async function expandWords(db: Database, words: readonly string[]): Promise<Map<string, string[]>> {
  const missing = [...new Set(words.filter((word) => !expansionCache.has(word)))];
  if (missing.length > 0) {
    const configs = JSON.stringify(['simple', ...STEMMED_CONFIGS]);
    const rows = rowsOf<{ word: string; lexeme: string }>(
      await db.execute(sql`
        select distinct w.word, lex.lexeme
        from jsonb_array_elements_text(${JSON.stringify(missing)}::jsonb) as w(word)
        cross join jsonb_array_elements_text(${configs}::jsonb) as cfg(name)
        cross join lateral unnest(tsvector_to_array(to_tsvector(cfg.name::regconfig, w.word))) as lex(lexeme)
      `),
    );
    if (expansionCache.size + missing.length > MAX_CACHED_WORDS) expansionCache.clear();
    for (const word of missing) expansionCache.set(word, []);
    for (const row of rows) expansionCache.get(row.word)?.push(row.lexeme);
    // A bare number may have been read as a signed integer ("2020-17221" → '2020', '-17221'), as for chunks.
    for (const word of missing) if (/^[0-9]+$/.test(word)) expansionCache.get(word)!.push(`-${word}`);
  }
  return new Map(words.map((word) => [word, expansionCache.get(word) ?? []]));
}

interface ScopeStatistics {
  /** Messages in the searched channels (BM25's N). */
  messages: number;
  /** Their average length in words. */
  averageWords: number;
  /** Share of messages holding each of the most common lexemes. */
  lexemeShares: ReadonlyMap<string, number>;
}

/** How long the counts and shares are reused: they move slowly, and only set BM25's scale. */
const STATS_TTL_MS = 5 * 60_000;
/** Below this many messages every word is ranked in full: there is nothing to save. */
const ANALYZE_FROM = 5_000;

interface CachedStatistics {
  at: number;
  byChannel: Map<string, { messages: number; words: number }>;
  lexemeShares: Map<string, number>;
  /** Messages in the index when it was last analysed from here. */
  analyzedAt: number;
}

const statsCache = new WeakMap<Database, CachedStatistics>();

/**
 * N and the average length over the searched channels, from per-channel counts read at most every few minutes (a
 * count over 100,000 rows on every search would cost more than the search), and the shares of the most common words
 * from PostgreSQL's own statistics of the tsv column (most_common_elems). The index is analysed from here when it
 * has no statistics yet or has doubled since: PGlite runs no autovacuum.
 */
async function scopeStatistics(db: Database, channelIds: readonly string[]): Promise<ScopeStatistics> {
  let cached = statsCache.get(db);
  if (!cached || Date.now() - cached.at > STATS_TTL_MS || channelIds.some((id) => !cached!.byChannel.has(id))) {
    const rows = rowsOf<{ channel_id: string; messages: number | string; words: number | string | null }>(
      await db.execute(sql`select channel_id, count(*) as messages, sum(tokens) as words from indexed_messages where not deleted group by channel_id`),
    );
    const byChannel = new Map(rows.map((r) => [r.channel_id, { messages: Number(r.messages), words: Number(r.words ?? 0) }]));
    // Channels without messages are remembered too, so they do not force a recount on every search.
    for (const id of channelIds) if (!byChannel.has(id)) byChannel.set(id, { messages: 0, words: 0 });
    const total = [...byChannel.values()].reduce((sum, c) => sum + c.messages, 0);
    let lexemeShares = await readLexemeShares(db);
    let analyzedAt = cached?.analyzedAt ?? 0;
    if (total >= ANALYZE_FROM && (lexemeShares.size === 0 || total >= 2 * Math.max(analyzedAt, 1))) {
      await db.execute(sql`analyze indexed_messages`);
      lexemeShares = await readLexemeShares(db);
      analyzedAt = total;
    }
    cached = { at: Date.now(), byChannel, lexemeShares, analyzedAt };
    statsCache.set(db, cached);
  }
  let messages = 0;
  let words = 0;
  for (const id of channelIds) {
    const channel = cached.byChannel.get(id);
    messages += channel?.messages ?? 0;
    words += channel?.words ?? 0;
  }
  return { messages, averageWords: messages > 0 ? Math.max(1, words / messages) : 1, lexemeShares: cached.lexemeShares };
}

async function readLexemeShares(db: Database): Promise<Map<string, number>> {
  const [row] = rowsOf<{ elems: unknown; freqs: unknown }>(
    await db.execute(sql`
      select most_common_elems::text::text[] as elems, most_common_elem_freqs::float8[] as freqs
      from pg_stats where schemaname = current_schema() and tablename = 'indexed_messages' and attname = 'tsv'
      limit 1
    `),
  );
  const elems = parseArray(row?.elems);
  const freqs = parseArray(row?.freqs).map(Number);
  return new Map(elems.map((elem, i) => [elem, freqs[i] ?? 0]));
}

/** A PostgreSQL array as either driver returns it: parsed already, or in its text form. */
function parseArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value !== 'string' || value.length < 2) return [];
  const items: string[] = [];
  for (const match of value.slice(1, -1).matchAll(/"((?:[^"\\]|\\.)*)"|([^,]+)/g)) {
    items.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!);
  }
  return items;
}
