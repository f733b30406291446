/**
 * search_messages underneath: the channels the asker may read (access.ts) first, then full-text ranking inside them
 * for every phrasing sent (the person's words, a translation into the language the messages were written in…), the
 * rankings fused as search_file fuses them, and each hit with what a person needs to trust it: channel, author,
 * date, permalink and the matched passage marked «like this».
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { mapConcurrently } from '../core/map-concurrently';
import type { Database } from '../store/database';
import { indexedMessages } from '../store/schema';
import { fuseRankings } from '../search/fuse-rankings';
import { describeMatch } from '../search/match-reason';
import { isEmptyQuery, parseQuery, type QueryTerms } from '../search/query-terms';
import { selectSnippet } from '../search/select-snippet';
import { describeTextLanguage } from '../text/language';
import { channelLabel, findReadableChannel, readableChannels, type Asker, type ReadableChannel } from './access';
import type { KnowledgeDirectory } from './directory';
import { rankMessagesForPhrasings, type MessageScope } from './rank-messages';
import { tsToDate } from './message-text';

export interface MessageSearchRequest {
  asker: Asker;
  /** Phrasings of one question, searched together and fused. */
  queries: readonly string[];
  /** A channel to search in ("#incidents", "C0123"); undefined → every channel the asker may read. */
  channel?: string;
  /** An author: a user id, a <@mention> or a name. */
  from?: string;
  since?: Date;
  until?: Date;
  limit: number;
  /** Longest passage shown per hit. Default 400. */
  snippetChars?: number;
  signal?: AbortSignal;
}

export interface MessageHit {
  channelId: string;
  /** "#platform", "a direct message". */
  channel: string;
  ts: string;
  threadTs?: string;
  userId?: string;
  author: string;
  postedAt: Date;
  edited: boolean;
  /** The passage with the matched words marked «like this». */
  snippet: string;
  reason: string;
  language?: string;
  permalink?: string;
}

export type MessageSearchResult =
  /** The channel named is not one this person may read, or not one threadwise knows: the same answer for both. */
  | { kind: 'unreadable_channel'; channel: string }
  | { kind: 'unknown_author'; from: string }
  | { kind: 'hits'; hits: MessageHit[]; scope: string };

/** Candidates each phrasing contributes before fusion. */
const CANDIDATES = 30;
/** Authors whose names are looked at when `from` is a name. */
const MAX_AUTHORS = 500;

export async function searchMessages(db: Database, directory: KnowledgeDirectory, request: MessageSearchRequest): Promise<MessageSearchResult> {
  const parsed = [...new Set(request.queries.map((q) => q.trim().replace(/\s+/g, ' ')).filter(Boolean))]
    .map((text) => ({ text, terms: parseQuery(text) }))
    .filter((q) => !isEmptyQuery(q.terms));
  if (parsed.length === 0) throw new Error(`The search query ${JSON.stringify(request.queries.join(' '))} has no words to look for; give a few words or a short question.`);

  const readable = await readableChannels(db, directory, request.asker);
  request.signal?.throwIfAborted();
  let channels = readable;
  if (request.channel !== undefined && request.channel.trim() !== '') {
    const one = findReadableChannel(readable, request.channel);
    if (!one) return { kind: 'unreadable_channel', channel: request.channel };
    channels = [one];
  }
  const scope: MessageScope = { channelIds: channels.map((c) => c.id), since: request.since, until: request.until };
  if (request.from !== undefined && request.from.trim() !== '') {
    const authors = await findAuthors(db, directory, scope, request.from);
    if (authors.length === 0) return { kind: 'unknown_author', from: request.from };
    scope.authorIds = authors;
  }
  const scopeName = channels.length === 1 && request.channel ? channelLabel(channels[0]!) : 'the channels you can read';

  const fused = parsed.length > 1;
  const lists = await rankMessagesForPhrasings(db, scope, parsed.map((q) => q.terms), fused ? CANDIDATES : request.limit, request.limit);
  request.signal?.throwIfAborted();
  const ranked = fused ? fuseByKey(lists, request.limit) : lists[0]!.slice(0, request.limit);
  if (ranked.length === 0) return { kind: 'hits', hits: [], scope: scopeName };

  const terms: QueryTerms = { words: [...new Set(parsed.flatMap((q) => q.terms.words))], bigrams: [...new Set(parsed.flatMap((q) => q.terms.bigrams))] };
  const rows = await loadMessages(db, ranked);
  const byChannel = new Map<string, ReadableChannel>(channels.map((c) => [c.id, c]));
  const snippetChars = request.snippetChars ?? 400;
  const hits = await mapConcurrently(ranked, 4, async ({ channelId, ts }): Promise<MessageHit | undefined> => {
    const row = rows.get(`${channelId}/${ts}`);
    const channel = byChannel.get(channelId);
    if (!row || !channel) return undefined;
    const [author, permalink] = await Promise.all([
      row.userId ? directory.userName(row.userId) : Promise.resolve(undefined),
      directory.permalink(channelId, ts, row.threadTs ?? undefined),
    ]);
    const hit: MessageHit = {
      channelId,
      channel: channelLabel(channel),
      ts,
      userId: row.userId ?? undefined,
      author: author ?? row.userId ?? 'someone',
      postedAt: tsToDate(ts),
      edited: row.edited,
      snippet: selectSnippet(row.text, terms, snippetChars).text,
      reason: describeMatch(row.text, parsed),
    };
    if (row.threadTs) hit.threadTs = row.threadTs;
    if (permalink) hit.permalink = permalink;
    const language = describeTextLanguage(row.text);
    if (language) hit.language = language;
    return hit;
  });
  return { kind: 'hits', hits: hits.filter((h): h is MessageHit => h !== undefined), scope: scopeName };
}

/** Reciprocal rank fusion over (channel, ts) keys, through search's fuseRankings (which fuses numeric ids). */
function fuseByKey(lists: Array<Array<{ channelId: string; ts: string }>>, limit: number) {
  const keys: Array<{ channelId: string; ts: string }> = [];
  const numberOf = new Map<string, number>();
  const numbered = lists.map((list) =>
    list.map((item) => {
      const key = `${item.channelId}/${item.ts}`;
      let n = numberOf.get(key);
      if (n === undefined) {
        n = keys.length;
        numberOf.set(key, n);
        keys.push(item);
      }
      return n;
    }),
  );
  return fuseRankings(numbered, limit).map(({ id }) => keys[id]!);
}

async function loadMessages(db: Database, ranked: Array<{ channelId: string; ts: string }>) {
  // One statement for every hit: channels and timestamps each as a list, pairs checked here.
  const found = await db
    .select({ channelId: indexedMessages.channelId, ts: indexedMessages.ts, text: indexedMessages.text, userId: indexedMessages.userId, threadTs: indexedMessages.threadTs, edited: indexedMessages.edited })
    .from(indexedMessages)
    .where(and(inArray(indexedMessages.channelId, [...new Set(ranked.map((r) => r.channelId))]), inArray(indexedMessages.ts, [...new Set(ranked.map((r) => r.ts))]), eq(indexedMessages.deleted, false)));
  return new Map(found.map((row) => [`${row.channelId}/${row.ts}`, row]));
}

/**
 * The authors `from` names: a user id or <@mention> as it is; a name matched against the names of the people who
 * wrote in the searched channels (whole name first, then its start).
 */
async function findAuthors(db: Database, directory: KnowledgeDirectory, scope: MessageScope, from: string): Promise<string[]> {
  const id = /^<?@?([UWB][A-Z0-9]{4,})(?:\|[^>]*)?>?$/.exec(from.trim());
  if (id) return [id[1]!];
  const wanted = from.trim().replace(/^@/, '').toLowerCase();
  const authors = await db
    .selectDistinct({ userId: indexedMessages.userId })
    .from(indexedMessages)
    .where(and(inArray(indexedMessages.channelId, [...scope.channelIds]), sql`${indexedMessages.userId} is not null`))
    .limit(MAX_AUTHORS);
  const named = await mapConcurrently(authors, 8, async ({ userId }) => ({ userId: userId!, name: (await directory.userName(userId!))?.toLowerCase() }));
  const exact = named.filter((a) => a.name === wanted);
  if (exact.length > 0) return exact.map((a) => a.userId);
  return named.filter((a) => a.name && (a.name.startsWith(wanted) || a.name.split(/\s+/).includes(wanted))).map((a) => a.userId);
}
