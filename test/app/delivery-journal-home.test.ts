/**
 * The journal of acknowledged deliveries lives only in the DATA_DIR the embedded database holds locked. An app whose
 * database is in memory keeps none: nothing it could journal would outlive it, and a journal outside that lock is
 * one another live process may take as a stopped one's leftovers (two test files once answered each other's
 * questions through the default ./data).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ANA, CHANNEL, startHarness, type Harness } from '../support/harness';
import { mentionEvent, slackEventEnvelope } from '../fakes/slack-signing';
import { openDeliveryJournalFile, type DeliveryJournalFile } from '../../src/slack/receiver/delivery-journal-file.mjs';

let dataDir: string;
let neighbour: DeliveryJournalFile | undefined;
let h: Harness | undefined;
afterEach(async () => {
  neighbour?.close();
  await h?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('an app whose database is in memory, given a DATA_DIR', () => {
  it('leaves a live neighbour’s journal alone and writes none of its own', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'threadwise-journal-home-'));
    const journalDir = path.join(dataDir, 'deliveries');
    // Another process, alive, has acknowledged a mention and not yet moved it into its database.
    neighbour = openDeliveryJournalFile(journalDir);
    const theirs = await neighbour.write({
      id: 'Ev0NEIGHBOUR',
      receivedBy: 'neighbour-replica',
      body: slackEventEnvelope(mentionEvent({ channel: CHANNEL, user: ANA, text: '<@U0BOT> whose question is this?', ts: '1700000001.000100' })),
    });

    h = await startHarness({ env: { DATA_DIR: dataDir } });
    h.model.enqueue({ text: 'Answered here.' });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> what changed?` });

    expect(await h.answers(CHANNEL, ts)).toEqual(['Answered here.']);
    expect(await readdir(journalDir)).toEqual([path.basename(theirs.file)]);
    expect(h.slack.botMessages(CHANNEL, '1700000001.000100')).toEqual([]);
    // Starts a harness of its own inside the test: 18 s of the default 30 at load 12 on 2 cores.
  }, 90_000);
});
