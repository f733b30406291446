/**
 * The receiver's journal file on its own: what is written is on disk when `write` resolves, a segment is deleted
 * once all of it is in the database, and what a stopped process left is read back whole (a torn last line skipped).
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDeliveryJournalFile, readLeftoverDeliveries, removeLeftoverFiles, type JournalledDelivery } from '../../../src/slack/receiver/delivery-journal-file.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function journalDir(): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'threadwise-journal-')), 'deliveries');
  dirs.push(path.dirname(dir));
  return dir;
}

function delivery(n: number, bodyBytes = 100): JournalledDelivery {
  return { id: `delivery-${n}`, receivedBy: 'replica-1', body: { event_id: `Ev${n}`, event: { text: 'x'.repeat(bodyBytes) } }, retryNum: n % 2 ? 1 : undefined };
}

describe('the delivery journal file', () => {
  it('has a delivery on disk once its write resolves, and reads it back as a stopped process left it', async () => {
    const dir = journalDir();
    const journal = openDeliveryJournalFile(dir);
    // A burst written in one turn shares one flush.
    await Promise.all([1, 2, 3].map((n) => journal.write(delivery(n))));
    const { deliveries, files } = readLeftoverDeliveries(dir);
    expect(deliveries.map((d) => d.id)).toEqual(['delivery-1', 'delivery-2', 'delivery-3']);
    expect(deliveries[0]).toEqual(JSON.parse(JSON.stringify(delivery(1))));
    expect(files).toHaveLength(1);
  });

  it('deletes a segment once every delivery written to it is in the database, and keeps one that is not', async () => {
    const dir = journalDir();
    const journal = openDeliveryJournalFile(dir);
    // ~10 KB each: the first segment passes 256 KB within 30 deliveries and is sealed; the next ones start another.
    const segments = [];
    for (let n = 0; n < 40; n++) segments.push({ n, segment: await journal.write(delivery(n, 10_000)) });
    const [first] = segments;
    const sealed = segments.filter(({ segment }) => segment === first!.segment);
    expect(sealed.length).toBeLessThan(40);
    expect(readdirSync(dir)).toHaveLength(2);

    for (const { segment } of sealed) journal.moved(segment);
    expect(existsSync(first!.segment.file)).toBe(false);
    expect(readLeftoverDeliveries(dir).deliveries).toHaveLength(40 - sealed.length);

    // The database refused the last one: closing leaves its segment, whole, for the next start (which replays the
    // moved ones too; the event-id dedupe answers those as duplicates).
    const rest = segments.filter(({ segment }) => segment !== first!.segment);
    for (const { segment } of rest.slice(0, -1)) journal.moved(segment);
    journal.close();
    expect(readLeftoverDeliveries(dir).deliveries.map((d) => d.id)).toEqual(rest.map(({ n }) => `delivery-${n}`));
  });

  it('skips the torn last line of a flush a crash cut short, and removes what was moved', async () => {
    const dir = journalDir();
    const journal = openDeliveryJournalFile(dir);
    const segment = await journal.write(delivery(1));
    appendFileSync(segment.file, '{"id":"delivery-2","receivedBy":"replica-1","bo');
    const { deliveries, files } = readLeftoverDeliveries(dir);
    expect(deliveries.map((d) => d.id)).toEqual(['delivery-1']);
    removeLeftoverFiles(files);
    expect(readLeftoverDeliveries(dir)).toEqual({ deliveries: [], files: [] });
  });

  it('reads nothing from a data directory that never had a journal', () => {
    expect(readLeftoverDeliveries(path.join(journalDir(), 'never-created'))).toEqual({ deliveries: [], files: [] });
  });
});
