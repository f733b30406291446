/**
 * Files read ahead of time (when they land in a thread, before anyone asks) are registered with their authors' names,
 * as a run registers them: the files list never says "from someone" for them. The worker here runs nothing
 * (concurrency 0), so what is registered is the prefetch's alone.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEN, startHarness, type Harness } from '../support/harness';
import { rowsOf } from '../../src/store/database';
import { eventually } from '../support/eventually';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ start: { concurrency: 0 } });
});
afterAll(() => h.close());

describe('files read ahead of time', () => {
  it('are registered with the name of the person who shared them', async () => {
    const file = h.slack.addFile({ name: 'q3-figures.txt', mimetype: 'text/plain', content: Buffer.from('Revenue grew 12%.\n') });
    await h.mention({ user: BEN, text: `<@${h.slack.botUserId}> have a look at these`, files: [file] });
    const registered = async () =>
      rowsOf<{ author_name: string | null; name: string }>(
        await h.database.db.execute(sql`select author_name, name from thread_files where slack_file_id = ${file.id}`),
      );
    const extracted = async () => rowsOf(await h.database.db.execute(sql`select 1 from slack_file_contents where slack_file_id = ${file.id}`)).length > 0;
    // Registered, and extracted: the prefetch has finished with it.
    await eventually(async () => (await registered()).length > 0 && (await extracted()), { timeoutMs: 20_000, what: 'the file read ahead of time' });
    expect(await registered()).toEqual([{ name: 'q3-figures.txt', author_name: 'Ben' }]);
    // No run did it: the worker runs nothing here.
    await h.app.idle();
    expect(h.model.requests).toHaveLength(0);
  });
});
