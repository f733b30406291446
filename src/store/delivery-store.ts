/**
 * The durable side of acknowledging Slack: deliveries recorded before the 200, questions asked on someone's behalf
 * (`/ask`, the shortcuts, reaction triggers) recorded before they are posted, and the replicas' heartbeats that
 * tell a dead process's leftovers from a busy one's.
 */
import { eq, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from './database';
import { rowsOf } from './database';
import { pendingQuestions, replicas, slackDeliveries } from './schema';

/**
 * The statement the receiver's thread runs (it has no drizzle, only a query port): one insert for every delivery
 * that arrived together, given as one JSON array parameter of {id, receivedBy, body, retryNum, retryReason}. The
 * parameter is declared text, then cast: declared jsonb, postgres.js would encode the string as JSON once more.
 */
export const RECORD_DELIVERIES_SQL = `insert into slack_deliveries (id, received_by, body, retry_num, retry_reason)
select d->>'id', d->>'receivedBy', d->'body', (d->>'retryNum')::integer, d->>'retryReason'
from jsonb_array_elements($1::text::jsonb) as d
on conflict (id) do nothing`;

/** One element of RECORD_DELIVERIES_SQL's array: a delivery as the receiver records it (and journals it first). */
export interface DeliveryRow {
  id: string;
  receivedBy: string;
  body: Record<string, unknown>;
  retryNum?: number;
  retryReason?: string;
}

const [beforeRows, afterRows] = RECORD_DELIVERIES_SQL.split('$1') as [string, string];

/** The receiver's insert from the main thread: deliveries a stopped process left in its journal file. */
export async function recordDeliveries(db: Database, rows: readonly DeliveryRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(sql`${sql.raw(beforeRows)}${JSON.stringify(rows)}${sql.raw(afterRows)}`);
}

export interface StoredDelivery {
  id: string;
  body: Record<string, unknown>;
  retryNum?: number;
  retryReason?: string;
}

/** Deliveries that needed no run (or were dropped as malformed): done with. */
export async function forgetDeliveries(db: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.delete(slackDeliveries).where(inArray(slackDeliveries.id, [...ids]));
}

/**
 * The rule both takeovers share: a record received by another replica whose heartbeat (`r`, left-joined on
 * `received_by`) is older than the lease, or that never had one.
 */
function receivedByAnotherDeadReplica(record: SQL, owner: string, leaseMs: number): SQL {
  return sql`${record}.received_by <> ${owner}
        and (r.id is null or r.heartbeat_at < now() - make_interval(secs => ${leaseMs / 1000}))`;
}

/**
 * Deliveries whose receiving process is gone (no heartbeat within `leaseMs`, or never registered), oldest first,
 * marked as being replayed by `owner` so that two replicas do not replay the same ones at once. A replay of one
 * that was in fact handled is harmless: the event-id dedupe answers it as a duplicate.
 */
export async function takeOrphanedDeliveries(db: Database, owner: string, leaseMs: number, limit = 200): Promise<StoredDelivery[]> {
  const result = await db.execute(sql`
    update slack_deliveries set replayed_at = now()
    where id in (
      select d.id from slack_deliveries d
      left join replicas r on r.id = d.received_by
      where ${receivedByAnotherDeadReplica(sql`d`, owner, leaseMs)}
        and (d.replayed_at is null or d.replayed_at < now() - make_interval(secs => ${Math.max(60, (leaseMs * 2) / 1000)}))
      order by d.received_at
      limit ${limit}
      for update of d skip locked
    )
    returning id, body, retry_num, retry_reason`);
  return rowsOf<{ id: string; body: unknown; retry_num: number | null; retry_reason: string | null }>(result).map((row) => ({
    id: row.id,
    body: (typeof row.body === 'string' ? JSON.parse(row.body) : row.body) as Record<string, unknown>,
    ...(row.retry_num !== null ? { retryNum: row.retry_num } : {}),
    ...(row.retry_reason !== null ? { retryReason: row.retry_reason } : {}),
  }));
}

export async function heartbeat(db: Database, replicaId: string): Promise<void> {
  await db
    .insert(replicas)
    .values({ id: replicaId })
    .onConflictDoUpdate({ target: replicas.id, set: { heartbeatAt: sql`now()` } });
}

/** A replica that stops cleanly says so; one that dies is forgotten after a day. */
export async function retireReplica(db: Database, replicaId: string): Promise<void> {
  await db.delete(replicas).where(or(eq(replicas.id, replicaId), lt(replicas.heartbeatAt, sql`now() - interval '1 day'`)));
}

/**
 * A question asked without a message of the asker's own (`/ask`, the Ask threadwise shortcuts, a reaction trigger),
 * recorded before it is posted as "@Ana asked: …" and before Slack hears back; its run settles the record.
 */
export interface PendingQuestion {
  id: string;
  /** A channel, or a user id (their DM with the bot, whose id Slack gives only once something is posted there). */
  channelId: string;
  userId: string;
  teamId?: string;
  question: string;
  /** Asked in this thread; absent: the question starts one. */
  threadTs?: string;
  /** How it was asked, for the posted line: "via the shortcut", "with :memo:". */
  via?: string;
  /** Follow-ups in the thread need no mention (`/ask`, a DM); false for a question asked in someone's thread. */
  engages: boolean;
  /** Where it was posted, once known. */
  posted?: { channelId: string; ts: string };
  /** A reaction trigger's question: the claim it holds on the reacted message. */
  reaction?: { name: string; messageTs: string };
  createdAt: Date;
}

export type NewPendingQuestion = Omit<PendingQuestion, 'createdAt' | 'posted'> & { receivedBy: string };

export async function recordQuestion(db: Database, question: NewPendingQuestion): Promise<void> {
  const { reaction, ...columns } = question;
  await db.insert(pendingQuestions).values({
    ...columns,
    teamId: question.teamId ?? null,
    threadTs: question.threadTs ?? null,
    via: question.via ?? null,
    reaction: reaction?.name ?? null,
    reactedTs: reaction?.messageTs ?? null,
  });
}

/** Where the question landed: from here on a recovery admits it there without searching Slack (a DM cannot be searched). */
export async function notePostedQuestion(db: Database, id: string, posted: { channelId: string; ts: string }): Promise<void> {
  await db.update(pendingQuestions).set({ postedChannelId: posted.channelId, postedTs: posted.ts }).where(eq(pendingQuestions.id, id));
}

export async function forgetQuestion(db: Database, id: string): Promise<void> {
  await db.delete(pendingQuestions).where(eq(pendingQuestions.id, id));
}

/** Questions whose process died before their run was written; marked so that one replica finishes each. */
export async function takeOrphanedQuestions(db: Database, owner: string, leaseMs: number): Promise<PendingQuestion[]> {
  const result = await db.execute(sql`
    update pending_questions set recovered_at = now()
    where id in (
      select q.id from pending_questions q
      left join replicas r on r.id = q.received_by
      where ${receivedByAnotherDeadReplica(sql`q`, owner, leaseMs)}
        and (q.recovered_at is null or q.recovered_at < now() - interval '5 minutes')
      order by q.created_at
      limit 50
      for update of q skip locked
    )
    returning id, channel_id, user_id, team_id, question, thread_ts, via, engages, posted_channel_id, posted_ts, reaction, reacted_ts, created_at`);
  type Row = {
    id: string;
    channel_id: string;
    user_id: string;
    team_id: string | null;
    question: string;
    thread_ts: string | null;
    via: string | null;
    engages: boolean;
    posted_channel_id: string | null;
    posted_ts: string | null;
    reaction: string | null;
    reacted_ts: string | null;
    created_at: string | Date;
  };
  return rowsOf<Row>(result).map((row) => ({
    id: row.id,
    channelId: row.channel_id,
    userId: row.user_id,
    ...(row.team_id ? { teamId: row.team_id } : {}),
    question: row.question,
    ...(row.thread_ts ? { threadTs: row.thread_ts } : {}),
    ...(row.via ? { via: row.via } : {}),
    engages: row.engages,
    ...(row.posted_channel_id && row.posted_ts ? { posted: { channelId: row.posted_channel_id, ts: row.posted_ts } } : {}),
    ...(row.reaction && row.reacted_ts ? { reaction: { name: row.reaction, messageTs: row.reacted_ts } } : {}),
    createdAt: new Date(row.created_at),
  }));
}

/** In the admission transaction: what was recorded for these messages is now their run (or their refusal). */
export async function settleRecorded(db: Database, deliveryIds: readonly string[], questionIds: readonly string[]): Promise<void> {
  if (deliveryIds.length > 0) await db.delete(slackDeliveries).where(inArray(slackDeliveries.id, [...deliveryIds]));
  if (questionIds.length > 0) await db.delete(pendingQuestions).where(inArray(pendingQuestions.id, [...questionIds]));
}
