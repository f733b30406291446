/**
 * What the Slack surfaces keep in the database, on PGlite and (with TEST_DATABASE_URL) PostgreSQL: reaction-trigger
 * claims (once per message and emoji), the channel a person is looking at, and the App Home's queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/store/database';
import { claimReactionTrigger, releaseReactionTrigger } from '../../src/store/reaction-trigger-store';
import { saveUserChannelContext, userChannelContext } from '../../src/store/user-context-store';
import { recentQuestionsOf } from '../../src/store/app-home-store';
import { readUsageTotals } from '../../src/store/usage-store';
import { upsertThread } from '../../src/store/thread-store';
import { claimNextRun, finishRun, insertWaitingRuns } from '../../src/store/run-store';
import { testDatabases } from '../support/databases';

describe.each(testDatabases())('Slack surfaces’ storage on $label', (database) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await database.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  it('claims a reaction trigger once per message and emoji, whoever reacts; a released claim can be taken again', async () => {
    const claim = { channelId: 'C1', messageTs: '1.1', reaction: 'memo', userId: 'U1' };
    const results = await Promise.all([claimReactionTrigger(handle.db, claim), claimReactionTrigger(handle.db, { ...claim, userId: 'U2' })]);
    expect(results.sort()).toEqual([false, true]);
    expect(await claimReactionTrigger(handle.db, claim)).toBe(false);
    expect(await claimReactionTrigger(handle.db, { ...claim, reaction: 'jira' })).toBe(true);
    expect(await claimReactionTrigger(handle.db, { ...claim, messageTs: '1.2' })).toBe(true);
    await releaseReactionTrigger(handle.db, claim);
    expect(await claimReactionTrigger(handle.db, claim)).toBe(true);
  });

  it('remembers the last channel each person looked at, per team', async () => {
    expect(await userChannelContext(handle.db, 'T1', 'U1')).toBeUndefined();
    await saveUserChannelContext(handle.db, { teamId: 'T1', userId: 'U1' }, 'C1');
    await saveUserChannelContext(handle.db, { teamId: 'T1', userId: 'U1' }, 'C2');
    await saveUserChannelContext(handle.db, { teamId: 'T2', userId: 'U1' }, 'C9');
    expect(await userChannelContext(handle.db, 'T1', 'U1')).toBe('C2');
    expect(await userChannelContext(handle.db, 'T2', 'U1')).toBe('C9');
  });

  it('lists a person’s recent questions newest first, and totals the week’s runs, tokens and failures', async () => {
    const threads = await Promise.all(['10.0', '11.0', '12.0'].map((threadTs) => upsertThread(handle.db, { channelId: 'CHOME', threadTs, teamId: 'T1' })));
    await insertWaitingRuns(handle.db, [
      { threadId: threads[0]!.id, triggerTs: '10.0', triggerUserId: 'UHOME', teamId: 'T1' },
      { threadId: threads[1]!.id, triggerTs: '11.0', triggerUserId: 'UOTHER', teamId: 'T1' },
      { threadId: threads[2]!.id, triggerTs: '12.0', triggerUserId: 'UHOME', teamId: 'T1' },
    ]);
    const today = new Date().toISOString().slice(0, 10);
    const before = await readUsageTotals(handle.db, { from: today, to: today });
    for (let run = await claimNextRun(handle.db, 'w', 30_000), n = 0; run; run = await claimNextRun(handle.db, 'w', 30_000), n++) {
      await finishRun(handle.db, run.id, 'w', n === 0 ? { status: 'failed', error: 'boom', inputTokens: 100, outputTokens: 10 } : { status: 'done', inputTokens: 1000, outputTokens: 50 });
    }
    const recent = await recentQuestionsOf(handle.db, 'UHOME');
    expect(recent.map((q) => [q.channelId, q.threadTs, q.triggerTs])).toEqual([
      ['CHOME', '12.0', '12.0'],
      ['CHOME', '10.0', '10.0'],
    ]);
    const totals = await readUsageTotals(handle.db, { from: today, to: today });
    expect(totals).toMatchObject({ runs: before.runs, failed: before.failed + 1, inputTokens: before.inputTokens + 2_100, outputTokens: before.outputTokens + 110 });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(await readUsageTotals(handle.db, { from: tomorrow, to: tomorrow })).toMatchObject({ runs: 0, failed: 0, inputTokens: 0, outputTokens: 0 });
  });
});
