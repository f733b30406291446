/**
 * Threads that live in this database rather than in Slack (a terminal chat, an eval case): the thread row, created
 * fresh, and its messages in thread_messages, in the shape Slack's conversations.replies gives them, so everything
 * downstream reads them as it reads a Slack thread.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Database } from './database';
import { threadMessages, threads } from './schema';
import type { ThreadRow } from './thread-store';

/** Tries before giving up on a fresh thread ts: each collision moves the ts on by a microsecond. */
const FRESH_THREAD_ATTEMPTS = 100;

/**
 * A new thread in `channelId`, never one that already exists: two sessions started in the same microsecond get
 * neighbouring timestamps, not one shared thread. `ts` is Slack-shaped ("seconds.micros").
 */
export async function createFreshThread(db: Database, channelId: string, ts: string): Promise<ThreadRow> {
  let candidate = ts;
  for (let attempt = 0; attempt < FRESH_THREAD_ATTEMPTS; attempt++) {
    const [row] = await db.insert(threads).values({ channelId, threadTs: candidate, engaged: true }).onConflictDoNothing().returning();
    if (row) return row;
    candidate = nextTs(candidate);
  }
  throw new Error(`Could not start a new thread in ${channelId}: ${FRESH_THREAD_ATTEMPTS} timestamps from ${ts} on are taken.`);
}

/** Adds a message (or replaces the one with its ts) to a thread's stored transcript. */
export async function saveThreadMessage<Message extends { ts: string }>(db: Database, threadId: number, message: Message): Promise<void> {
  await db
    .insert(threadMessages)
    .values({ threadId, ts: message.ts, payload: message })
    .onConflictDoUpdate({ target: [threadMessages.threadId, threadMessages.ts], set: { payload: message } });
}

/** A thread's stored messages, oldest first. */
export async function listThreadMessages<Message>(db: Database, channelId: string, threadTs: string): Promise<Message[]> {
  const rows = await db
    .select({ payload: threadMessages.payload })
    .from(threadMessages)
    .innerJoin(threads, eq(threads.id, threadMessages.threadId))
    .where(and(eq(threads.channelId, channelId), eq(threads.threadTs, threadTs)))
    .orderBy(asc(threadMessages.ts));
  return rows.map((row) => row.payload as Message);
}

/** The Slack-shaped ts one microsecond after `ts`. */
export function nextTs(ts: string): string {
  const [seconds = '0', micros = '0'] = ts.split('.');
  const next = Number(micros.padEnd(6, '0')) + 1;
  return next >= 1_000_000 ? `${Number(seconds) + 1}.000000` : `${seconds}.${String(next).padStart(6, '0')}`;
}
