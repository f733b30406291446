/**
 * What threadwise keeps, and for how long (README: "What threadwise stores, and for how long"). Content derived from
 * what people wrote and shared — extracted file text, search chunks, image descriptions, cached messages, thread
 * summaries, tool-call arguments — goes after RETENTION_DAYS, and at once when Slack says the file or message was
 * deleted. What the usage figures need stays: runs with their token counts and timings, steps without payloads.
 * Anything swept is derived again on demand while Slack still has the original.
 */
import { and, eq, inArray, isNotNull, like, lt, notExists, or, sql } from 'drizzle-orm';
import type { Database } from './database';
import {
  approvals,
  chunks,
  documents,
  imageDescriptions,
  indexedMessages,
  reactionTriggerClaims,
  runs,
  runSteps,
  slackFileContents,
  spendLimitOverrides,
  threadFiles,
  threadMessages,
  threads,
  userAppContext,
} from './schema';

export interface SweepCounts {
  documents: number;
  imageDescriptions: number;
  stepPayloads: number;
  threadFiles: number;
  cachedMessages: number;
  /** Channel messages of the search index (knowledge/), by when they were posted. */
  indexedMessages: number;
}

/** Removes derived content older than `days` days. Run totals are kept. */
export async function sweepExpiredContent(db: Database, days: number): Promise<SweepCounts> {
  const cutoff = sql`now() - make_interval(days => ${days})`;
  return db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    const expiredDocuments = await t.delete(documents).where(lt(documents.createdAt, cutoff)).returning({ hash: documents.contentHash });
    // A Slack file's pointer to text that is gone (or old) goes with it: the next read downloads and extracts again.
    await t
      .delete(slackFileContents)
      .where(
        or(
          lt(slackFileContents.createdAt, cutoff),
          notExists(t.select({ one: sql`1` }).from(documents).where(eq(documents.contentHash, slackFileContents.contentHash))),
        ),
      );
    const described = await t.delete(imageDescriptions).where(lt(imageDescriptions.createdAt, cutoff)).returning({ id: imageDescriptions.slackFileId });
    const steps = await t
      .update(runSteps)
      .set({ arguments: null, resultPreview: null })
      .where(and(lt(runSteps.createdAt, cutoff), or(isNotNull(runSteps.arguments), isNotNull(runSteps.resultPreview))))
      .returning({ id: runSteps.id });
    // An approval's record (who decided what, when) stays; the arguments it showed go, like the step's. Only decided
    // ones: a pending call still needs its arguments to run.
    await t
      .update(approvals)
      .set({ arguments: null })
      .where(and(lt(approvals.createdAt, cutoff), isNotNull(approvals.arguments), sql`${approvals.status} <> 'pending'`));
    // What a run read (file names, search queries) is replayed into later turns; the totals beside it stay.
    // So do the question, the answer and the images' names the console shows (issue 16); its usage figures stay.
    await t
      .update(runs)
      .set({ activity: null, question: null, answer: null, imagesShown: [] })
      .where(and(lt(runs.createdAt, cutoff), or(isNotNull(runs.activity), isNotNull(runs.question), isNotNull(runs.answer))));
    const staleThreads = t.select({ id: threads.id }).from(threads).where(lt(threads.updatedAt, cutoff));
    const files = await t
      .delete(threadFiles)
      .where(and(lt(threadFiles.createdAt, cutoff), inArray(threadFiles.threadId, staleThreads)))
      .returning({ id: threadFiles.fileId });
    await t.update(threads).set({ summary: null, summaryTurns: null }).where(and(lt(threads.updatedAt, cutoff), isNotNull(threads.summary)));
    const messages = await t.delete(threadMessages).where(lt(threadMessages.updatedAt, cutoff)).returning({ ts: threadMessages.ts });
    // Who reacted to which message, which channel someone last looked at, who lifted a limit: about people, so they
    // go with the rest. A reaction re-added after the window may ask again; nobody waits that long for an answer.
    await t.delete(reactionTriggerClaims).where(lt(reactionTriggerClaims.claimedAt, cutoff));
    await t.delete(userAppContext).where(lt(userAppContext.updatedAt, cutoff));
    await t.delete(spendLimitOverrides).where(lt(spendLimitOverrides.createdAt, cutoff));
    // The channel messages search_messages and read_channel read: posted before the window, they go (a deleted
    // message's blank row too). Memories stay: people asked for them to be kept, and forget removes them.
    const indexed = await t.delete(indexedMessages).where(lt(indexedMessages.postedAt, cutoff)).returning({ ts: indexedMessages.ts });
    return {
      documents: expiredDocuments.length,
      imageDescriptions: described.length,
      stepPayloads: steps.length,
      threadFiles: files.length,
      cachedMessages: messages.length,
      indexedMessages: indexed.length,
    };
  });
}

/**
 * Slack says a file was deleted: its text, chunks and description go, and so does its place in every thread (with
 * the extracted-text file made from it). Text shared with another, still existing Slack file (same bytes) stays.
 */
export async function forgetSlackFile(db: Database, slackFileId: string): Promise<{ documents: number; threadFiles: number }> {
  // Files inside it (zip entries, attachments, pictures: "<id>::<path>", files/contained-file-key.ts) go with it.
  const inside = `${slackFileId.replace(/[\\%_]/g, (c) => `\\${c}`)}::%`;
  return db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    const pointers = await t
      .delete(slackFileContents)
      .where(or(eq(slackFileContents.slackFileId, slackFileId), like(slackFileContents.slackFileId, inside)))
      .returning({ hash: slackFileContents.contentHash });
    let removedDocuments = 0;
    for (const { hash } of pointers) {
      const stillShared = await t.select({ id: slackFileContents.slackFileId }).from(slackFileContents).where(eq(slackFileContents.contentHash, hash)).limit(1);
      if (stillShared.length > 0) continue;
      await t.delete(chunks).where(eq(chunks.contentHash, hash));
      removedDocuments += (await t.delete(documents).where(eq(documents.contentHash, hash)).returning({ hash: documents.contentHash })).length;
    }
    await t.delete(imageDescriptions).where(eq(imageDescriptions.slackFileId, slackFileId));
    const registered = await t
      .delete(threadFiles)
      .where(or(eq(threadFiles.slackFileId, slackFileId), like(threadFiles.slackFileId, inside)))
      .returning({ threadId: threadFiles.threadId, fileId: threadFiles.fileId });
    let removedFiles = registered.length;
    for (const { threadId, fileId } of registered) {
      removedFiles += (
        await t
          .delete(threadFiles)
          .where(and(eq(threadFiles.threadId, threadId), eq(threadFiles.sourceFileId, fileId)))
          .returning({ id: threadFiles.fileId })
      ).length;
    }
    return { documents: removedDocuments, threadFiles: removedFiles };
  });
}

/**
 * Slack says a message was deleted: the cached copy goes, the summary of its thread (which may quote it) goes, and
 * so do the files shared in it (as forgetSlackFile). Returns the Slack file ids it removed.
 */
export async function forgetSlackMessage(db: Database, channelId: string, ts: string, slackFileIds: readonly string[] = []): Promise<string[]> {
  const channelThreads = db.select({ id: threads.id }).from(threads).where(eq(threads.channelId, channelId));
  const cached = await db
    .delete(threadMessages)
    .where(and(eq(threadMessages.ts, ts), inArray(threadMessages.threadId, channelThreads)))
    .returning({ threadId: threadMessages.threadId });
  const sharedHere = await db
    .select({ threadId: threadFiles.threadId, slackFileId: threadFiles.slackFileId })
    .from(threadFiles)
    .where(and(eq(threadFiles.messageTs, ts), inArray(threadFiles.threadId, channelThreads), isNotNull(threadFiles.slackFileId)));
  const threadIds = new Set([...cached.map((row) => row.threadId), ...sharedHere.map((row) => row.threadId)]);
  const parent = await db.select({ id: threads.id }).from(threads).where(and(eq(threads.channelId, channelId), eq(threads.threadTs, ts)));
  for (const { id } of parent) threadIds.add(id);
  if (threadIds.size > 0) await db.update(threads).set({ summary: null, summaryTurns: null }).where(inArray(threads.id, [...threadIds]));
  const fileIds = [...new Set([...slackFileIds, ...sharedHere.map((row) => row.slackFileId!)])];
  for (const fileId of fileIds) await forgetSlackFile(db, fileId);
  return fileIds;
}
