/**
 * The console's reads, the usage queries and the spend-limit store, on PGlite and (with TEST_DATABASE_URL) on
 * PostgreSQL 15: filters and keyset pages of the runs list, usage per day/channel/user/model, today's spend with
 * lifted limits, refused runs, the queue's state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../src/store/database';
import { upsertThread } from '../../src/store/thread-store';
import { runs, threadFiles } from '../../src/store/schema';
import { findSlackIdsByName, listRuns, listRunsInProgress, readQueueState, readRunDetail, readSlackNames } from '../../src/store/console-queries';
import { rememberSlackNames } from '../../src/store/slack-name-store';
import { claimNextRun, finishRun, recordCurrentStep } from '../../src/store/run-store';
import { parkRun } from '../../src/store/approval-store';
import { readTopSpendersToday, readUsage, readUsageTotals } from '../../src/store/usage-store';
import { insertRefusedRuns, liftSpendLimitForToday, readTodaysSpend } from '../../src/store/spend-limit-store';
import { insertRunSteps } from '../../src/store/run-store';
import { testDatabases } from '../support/databases';

describe.each(testDatabases())('console and usage queries on $label', (database) => {
  let handle: DatabaseHandle;
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    handle = await database.open();
    const a = await upsertThread(handle.db, { channelId: 'C0A', threadTs: '1700000000.000001', engaged: true });
    const b = await upsertThread(handle.db, { channelId: 'C0B', threadTs: '1700000000.000002', engaged: true });
    const run = (threadId: number, channelId: string, n: number, extra: Partial<typeof runs.$inferInsert> = {}) => ({
      threadId,
      channelId,
      triggerTs: `1700000001.${String(n).padStart(6, '0')}`,
      triggerUserId: n % 2 ? 'U0ODD' : 'U0EVEN',
      status: 'done' as const,
      model: 'gpt-4o-mini',
      inputTokens: 1_000,
      outputTokens: 100,
      costUsd: 0.01,
      question: `question ${n}`,
      ...extra,
    });
    await handle.db.insert(runs).values([
      ...Array.from({ length: 5 }, (_, i) => run(a.id, 'C0A', i + 1)),
      run(b.id, 'C0B', 6, { model: 'gpt-4o', costUsd: 0.5, createdAt: new Date(Date.now() - 86_400_000) }),
      run(b.id, 'C0B', 7, { status: 'failed' }),
    ]);
    await insertRefusedRuns(handle.db, [{ threadId: b.id, channelId: 'C0B', triggerTs: '1700000002.000001', triggerUserId: 'U0ODD', reason: 'over the limit' }]);
  });
  afterAll(() => handle?.close());

  it('pages the runs newest first and filters them', async () => {
    const first = await listRuns(handle.db, {}, { limit: 3 });
    expect(first.rows).toHaveLength(3);
    expect(first.next).toBeDefined();
    const second = await listRuns(handle.db, {}, { after: first.next, limit: 3 });
    const third = await listRuns(handle.db, {}, { after: second.next, limit: 3 });
    const all = [...first.rows, ...second.rows, ...third.rows];
    expect(all).toHaveLength(8);
    expect(new Set(all.map((r) => r.id)).size).toBe(8);
    expect(third.next).toBeUndefined();
    expect(all.at(-1)?.question).toBe('question 6'); // yesterday's is the oldest
    expect((await listRuns(handle.db, { channelId: 'C0B' }, { limit: 50 })).rows.map((r) => r.status).sort()).toEqual(['done', 'failed', 'refused']);
    expect((await listRuns(handle.db, { model: 'gpt-4o' }, { limit: 50 })).rows.map((r) => r.question)).toEqual(['question 6']);
    expect((await listRuns(handle.db, { from: today, to: today, userId: 'U0EVEN' }, { limit: 50 })).rows.map((r) => r.question).sort()).toEqual(['question 2', 'question 4']);
    expect((await listRuns(handle.db, { status: 'refused' }, { limit: 50 })).rows).toHaveLength(1);
  });

  it('reads one run with its steps', async () => {
    const [row] = (await listRuns(handle.db, { channelId: 'C0A' }, { limit: 1 })).rows;
    await insertRunSteps(handle.db, row!.id, [
      { kind: 'tool', name: 'peek_file', iteration: 1, arguments: { id: 'F1' }, resultChars: 20, resultPreview: 'first line', durationMs: 12, startedAt: Date.now() },
    ]);
    const detail = await readRunDetail(handle.db, row!.id);
    expect(detail?.thread.channelId).toBe('C0A');
    expect(detail?.steps.map((s) => [s.name, s.arguments, s.resultPreview, s.startedAt instanceof Date])).toEqual([['peek_file', { id: 'F1' }, 'first line', true]]);
    expect(await readRunDetail(handle.db, 999_999)).toBeUndefined();
  });

  it('sums usage per day, channel, user and model', async () => {
    const range = { from: yesterday, to: today };
    const byDay = await readUsage(handle.db, 'day', range);
    expect(byDay.map((r) => [r.key, r.runs, r.refused])).toEqual([
      [yesterday, 1, 0],
      [today, 6, 1],
    ]);
    const byChannel = await readUsage(handle.db, 'channel', range);
    expect(byChannel[0]).toMatchObject({ key: 'C0B', runs: 2, refused: 1, inputTokens: 2_000, outputTokens: 200 });
    expect(byChannel[0]!.costUsd).toBeCloseTo(0.51, 6);
    expect((await readUsage(handle.db, 'model', range)).map((r) => r.key)).toEqual(['gpt-4o', 'gpt-4o-mini', '']); // '': the refused run, which called no model
    expect((await readUsageTotals(handle.db, { from: today, to: today, channelId: 'C0A' })).inputTokens).toBe(5_000);
    expect((await readUsage(handle.db, 'day', { from: yesterday, to: today, channelId: 'C0B' })).map((r) => r.key)).toEqual([yesterday, today]);
    expect((await readTopSpendersToday(handle.db)).find((r) => r.scope === 'channel' && r.subjectId === 'C0A')?.costUsd).toBeCloseTo(0.05, 6);
  });

  it("reads today's spend, and limits lifted for today", async () => {
    const spend = await readTodaysSpend(handle.db, { userIds: ['U0ODD', 'U0EVEN', 'U0NOBODY'], channelIds: ['C0A', 'C0B'] });
    expect(spend.byUser.get('U0ODD')).toBeCloseTo(0.04, 6); // runs 1, 3, 5, 7 today; 6 was yesterday
    expect(spend.byChannel.get('C0B')).toBeCloseTo(0.01, 6);
    expect(spend.byUser.has('U0NOBODY')).toBe(false);
    expect(spend.lifted.size).toBe(0);
    await liftSpendLimitForToday(handle.db, 'channel', 'C0B', 'ops');
    await liftSpendLimitForToday(handle.db, 'channel', 'C0B', 'ops again');
    expect([...(await readTodaysSpend(handle.db, { userIds: [], channelIds: ['C0B'] })).lifted]).toEqual(['channel:C0B']);
  });

  it('keeps the names runs resolved, rewriting only a changed one, and finds ids by name', async () => {
    await rememberSlackNames(handle.db, [
      { id: 'C0A', kind: 'channel', name: 'incidents' },
      { id: 'U0ODD', kind: 'user', name: 'Odile' },
      { id: 'U0ODD', kind: 'user', name: 'Odile' },
    ]);
    await rememberSlackNames(handle.db, [{ id: 'U0EVEN', kind: 'user', name: 'Evan' }, { id: 'C0A', kind: 'channel', name: 'incidents-2026' }]);
    expect(await readSlackNames(handle.db, ['C0A', 'U0ODD', 'U0EVEN', 'U0NOBODY', null])).toEqual(
      new Map([
        ['C0A', 'incidents-2026'],
        ['U0ODD', 'Odile'],
        ['U0EVEN', 'Evan'],
      ]),
    );
    expect(await findSlackIdsByName(handle.db, 'channel', 'Incidents-2026')).toEqual(['C0A']);
    expect(await findSlackIdsByName(handle.db, 'user', 'incidents-2026')).toEqual([]);
  });

  it("reads a run's names and its thread's file names", async () => {
    const [row] = (await listRuns(handle.db, { channelId: 'C0A', userId: 'U0ODD' }, { limit: 1 })).rows;
    const threadId = (await handle.db.select({ threadId: runs.threadId }).from(runs).where(sql`id = ${row!.id}`))[0]!.threadId;
    await handle.db.insert(threadFiles).values({ threadId, fileId: 'F9', slackFileId: 'FSLACK9', name: 'release-notes.txt', mimeType: 'text/plain', fileType: 'text', sizeBytes: 10, messageTs: '1' });
    const detail = await readRunDetail(handle.db, row!.id);
    expect(detail?.fileNames.get('F9')).toBe('release-notes.txt');
    expect(detail?.names.get('C0A')).toBe('incidents-2026');
    expect(detail?.names.get('U0ODD')).toBe('Odile');
    expect(Math.abs(detail!.now.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it("keeps a running run's current step while its owner holds it, and clears it when the run parks or ends", async () => {
    const thread = await upsertThread(handle.db, { channelId: 'C0LIVE', threadTs: '1700000009.000001', engaged: true });
    await handle.db.insert(runs).values({ threadId: thread.id, channelId: 'C0LIVE', triggerTs: '1700000009.000001', triggerUserId: 'U0ODD', status: 'pending', question: 'live one' });
    await handle.db.execute(sql`update runs set status = 'done' where status in ('pending', 'resumable') and channel_id <> 'C0LIVE'`);
    const claimed = await claimNextRun(handle.db, 'replica-a', 60_000);
    expect(claimed?.question).toBe('live one');
    await recordCurrentStep(handle.db, claimed!.id, 'replica-a', { kind: 'model', names: ['gpt-4o-mini'] });
    await recordCurrentStep(handle.db, claimed!.id, 'replica-b', { kind: 'tool', names: ['ignored'] }); // not the owner
    let [live] = (await listRunsInProgress(handle.db)).filter((r) => r.id === claimed!.id);
    expect(live?.currentStep).toEqual({ kind: 'model', names: ['gpt-4o-mini'] });
    expect(live!.now.getTime() - live!.currentStepAt!.getTime()).toBeGreaterThanOrEqual(0);
    expect(live?.pendingApprovals).toEqual([]);

    await recordCurrentStep(handle.db, claimed!.id, 'replica-a', { kind: 'tool', names: ['peek_file', 'search_file'], detail: 'reading a.pdf…' });
    const toolSince = (await listRunsInProgress(handle.db)).find((r) => r.id === claimed!.id)!.currentStepAt!;
    await recordCurrentStep(handle.db, claimed!.id, 'replica-a', { kind: 'tool', names: ['search_file'] }, { keepSince: true });
    [live] = (await listRunsInProgress(handle.db)).filter((r) => r.id === claimed!.id);
    expect(live?.currentStep).toEqual({ kind: 'tool', names: ['search_file'] });
    expect(live?.currentStepAt?.getTime()).toBe(toolSince.getTime());

    const parked = await parkRun(handle.db, {
      runId: claimed!.id,
      owner: 'replica-a',
      turn: {},
      calls: [{ callId: 'call-1', tool: 'tracker__create_issue', action: 'create_issue', arguments: { title: 'x' } }],
      channelId: 'C0LIVE',
      threadTs: '1700000009.000001',
      expiresInMs: 600_000,
      costs: { model: 'gpt-4o-mini' },
    });
    expect(parked).toHaveLength(1);
    [live] = (await listRunsInProgress(handle.db)).filter((r) => r.id === claimed!.id);
    expect(live).toMatchObject({ status: 'waiting_approval', currentStep: null, currentStepAt: null });
    expect(live?.pendingApprovals.map((a) => a.tool)).toEqual(['tracker__create_issue']);
    expect(live?.pendingApprovals[0]?.createdAt).toBeInstanceOf(Date);

    await handle.db.execute(sql`update runs set status = 'resumable' where id = ${claimed!.id}`);
    const again = await claimNextRun(handle.db, 'replica-a', 60_000);
    await recordCurrentStep(handle.db, again!.id, 'replica-a', { kind: 'model', names: ['gpt-4o-mini'] });
    expect(await finishRun(handle.db, again!.id, 'replica-a', { status: 'done' })).toBe(true);
    await recordCurrentStep(handle.db, again!.id, 'replica-a', { kind: 'model', names: ['late write'] }); // after the end: nothing
    const [finished] = await handle.db.select({ step: runs.currentStep, at: runs.currentStepAt }).from(runs).where(sql`id = ${again!.id}`);
    expect(finished).toEqual({ step: null, at: null });
  });

  it('counts the queue', async () => {
    await handle.db.execute(sql`update runs set status = 'pending' where question = 'question 1'`);
    const queue = await readQueueState(handle.db);
    expect(queue.pending.runs).toBe(1);
    expect(queue.failedLastHour.runs).toBe(1);
    expect(queue.refusedToday.runs).toBe(1);
  });
});
