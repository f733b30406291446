import { beforeEach, describe, expect, it } from 'vitest';
import { findTextLengths, getDocumentForFile } from '../../src/files/file-store';
import { listThreadFiles } from '../../src/files/registry';
import type { SlackFileObject } from '../../src/core/slack-file';
import { createThreadFileAccess } from '../../src/files/thread-file-access';
import { createSlackFileSource } from '../../src/slack/files/slack-file-source';
import { FileReadError, type ExtractedDocument } from '../../src/core/thread-file';
import { UnknownFileError } from '../../src/core/thread-file';
import { testDatabases } from '../support/databases';
import { useFileTestbed } from '../support/file-testbed';

/** Reads bytes as text, pages split on form feeds, and counts its calls — or fails the way it is told to. */
function countingExtractor() {
  const extractor = {
    calls: [] as string[],
    failWith: undefined as FileReadError | undefined,
    async extract({ bytes, name }: { bytes: Uint8Array; name: string }): Promise<ExtractedDocument> {
      extractor.calls.push(name);
      if (extractor.failWith) throw extractor.failWith;
      const pages = Buffer.from(bytes).toString('utf8').split('\f');
      let offset = 0;
      const segments = pages.map((page, i) => {
        const segment = { kind: 'page' as const, number: i + 1, label: `p. ${i + 1}`, start: offset, end: offset + page.length };
        offset += page.length + 1;
        return segment;
      });
      return { text: pages.join('\n'), pageCount: pages.length, outline: [], segments, notes: [] };
    },
  };
  return extractor;
}

describe.each(testDatabases())('thread file access on $label', (database) => {
  const bed = useFileTestbed(database);
  let extractor: ReturnType<typeof countingExtractor>;
  beforeEach(() => {
    extractor = countingExtractor();
  });

  /** A thread holding these files, one message each, and the access a run would get for it. */
  const threadWith = (files: SlackFileObject[], options: { withObjects?: boolean } = {}) => bed.threadWith(files, { extractor, ...options });

  const text = (name: string, content: string) => bed.slack.addFile({ name, mimetype: 'text/plain', content });

  it('reads a file once: the second question costs no download and no parse, also in a later run', async () => {
    const { access, open } = await threadWith([text('notes.txt', 'page one\fpage two')]);
    const document = await access.readText('F1');
    expect(document.text).toBe('page one\npage two');
    expect(access.get('F1').pageCount).toBe(2);

    await access.readText('F1');
    await open().readText('F1');
    expect(bed.slack.downloads).toHaveLength(1);
    expect(extractor.calls).toEqual(['notes.txt']);
  });

  it('shares one download between concurrent reads of the same file', async () => {
    const { access } = await threadWith([text('shared.txt', 'same')]);
    const [a, b, c] = await Promise.all([access.readText('F1'), access.readText('F1'), access.readText('f1')]);
    expect([a.text, b.text, c.text]).toEqual(['same', 'same', 'same']);
    expect(bed.slack.downloads).toHaveLength(1);
    expect(extractor.calls).toHaveLength(1);
  });

  it('lets one reader give up without failing another reading the same file', async () => {
    const { access } = await threadWith([text('patient.txt', 'worth the wait')]);
    const impatient = new AbortController();
    const first = access.readText('F1', impatient.signal);
    const second = access.readText('F1');
    impatient.abort(new Error('the run was cancelled'));
    await expect(first).rejects.toThrow('the run was cancelled');
    expect((await second).text).toBe('worth the wait');
    expect(bed.slack.downloads).toHaveLength(1);
  });

  it('refuses a declared 1 GB upload without downloading any of it', async () => {
    const huge = bed.slack.addFile({ name: 'dump.csv', mimetype: 'text/csv', content: 'a,b\n', declaredSize: 1024 ** 3 });
    const { access } = await threadWith([huge]);
    await expect(access.readText('F1')).rejects.toMatchObject({
      code: 'too_large',
      message: 'dump.csv is too large for me to read: it is 1 GB, and I read files up to 1 MB. Share a smaller export or the part you need.',
    });
    expect(bed.slack.downloads).toEqual([]);
  });

  it('parses the same bytes once even when they are shared again as another file', async () => {
    const { access } = await threadWith([text('v1.txt', 'identical bytes'), text('copy of v1.txt', 'identical bytes')]);
    await access.readText('F1');
    await access.readText('F2');
    expect(bed.slack.downloads).toHaveLength(2);
    expect(extractor.calls).toEqual(['v1.txt']);
  });

  it('caches an extraction error that belongs to the file, and lists the file with it', async () => {
    const { threadId, access, open } = await threadWith([text('broken.pdf', 'not really a pdf')]);
    extractor.failWith = new FileReadError('corrupt', "I can't read broken.pdf: the file is damaged or cut short. Export or upload it again.");
    await expect(access.readText('F1')).rejects.toMatchObject({ code: 'corrupt' });
    expect(access.get('F1').error?.code).toBe('corrupt');
    await expect(open().readText('F1')).rejects.toMatchObject({ code: 'corrupt', message: expect.stringContaining('broken.pdf') });
    expect(extractor.calls).toHaveLength(1);
    expect(bed.slack.downloads).toHaveLength(1);
    expect((await listThreadFiles(bed.handle.db, threadId))[0]!.error?.code).toBe('corrupt');
  });

  it('does not cache an error of the moment: a timed-out extraction is tried again', async () => {
    const { access } = await threadWith([text('slow.txt', 'eventually fine')]);
    extractor.failWith = new FileReadError('timeout', 'Reading slow.txt took too long, so I stopped.');
    await expect(access.readText('F1')).rejects.toMatchObject({ code: 'timeout' });
    extractor.failWith = undefined;
    expect((await access.readText('F1')).text).toBe('eventually fine');
    expect(extractor.calls).toHaveLength(2);
  });

  it('refuses an id the thread does not hold, listing the ids it does', async () => {
    const other = await threadWith([text('a.txt', 'A secret'), text('b.txt', 'B'), text('c.txt', 'C')]);
    const mine = await threadWith([text('mine.txt', 'mine')]);
    expect(() => mine.access.get('F3')).toThrow(UnknownFileError);
    expect(() => mine.access.get('F3')).toThrow('There is no file "F3" in this thread. The files here are: F1.');
    await expect(mine.access.readText('F2')).rejects.toBeInstanceOf(UnknownFileError);
    await expect(mine.access.readText('made-up')).rejects.toMatchObject({ availableIds: ['F1'] });
    // The same id in another thread is another file.
    expect((await mine.access.readText('F1')).text).toBe('mine');
    expect((await other.access.readText('F1')).text).toBe('A secret');
  });

  it('extracts into a virtual file that every later run can open by its id', async () => {
    const { threadId, access } = await threadWith([text('report.txt', 'one\ftwo\fthree')]);
    const { file, document } = await access.extract('F1');
    expect(file).toMatchObject({ id: 'F1.txt', name: 'report.txt.txt', fileType: 'text', sizeBytes: 13, sourceId: 'F1', pageCount: 3 });
    expect(access.list().map((f) => f.id)).toEqual(['F1', 'F1.txt']);
    expect((await access.readText('F1.txt')).text).toBe(document.text);
    expect((await access.extract('F1.txt')).file.id).toBe('F1.txt');

    const later = createThreadFileAccess({
      db: bed.handle.db,
      threadId,
      files: await listThreadFiles(bed.handle.db, threadId),
      source: createSlackFileSource({ db: bed.handle.db, slack: { botToken: bed.slack.botToken, apiUrl: bed.slack.apiUrl } }),
      extractor,
      limits: { maxFileBytes: 1024 * 1024, maxImageBytes: 64 * 1024 },
    });
    expect(later.get('F1.txt').pageCount).toBe(3);
    expect((await later.readText('F1.txt')).text).toBe('one\ntwo\nthree');
    expect(extractor.calls).toHaveLength(1);
    expect(await getDocumentForFile(bed.handle.db, threadId, 'F1.txt')).toMatchObject({ contentHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await findTextLengths(bed.handle.db, later.list())).toEqual(new Map([['F1', 13], ['F1.txt', 13]]));
  });

  it('says plainly when a file is deleted, external or a tombstone, without downloading it', async () => {
    const deleted = bed.slack.addFile({ name: 'old-plan.docx', mimetype: 'text/plain', content: 'x', access: 'deleted' });
    const external = bed.slack.addFile({ name: 'Roadmap', mimetype: 'application/vnd.google-apps.document', content: '', access: 'external' });
    const tombstone = bed.slack.addFile({ name: 'gone.pdf', mimetype: 'application/pdf', content: 'x', access: 'tombstone' });
    const { access } = await threadWith([deleted, external, tombstone]);

    await expect(access.readText('F1')).rejects.toMatchObject({ code: 'deleted', message: "I can't open old-plan.docx: it has been deleted from Slack." });
    await expect(access.readText('F2')).rejects.toMatchObject({
      code: 'external',
      message: "I can't open Roadmap: it is a link to Google Drive, not a file stored in Slack. Download it and upload the file here instead.",
    });
    await expect(access.readText('F3')).rejects.toMatchObject({ code: 'deleted' });
    expect(bed.slack.downloads.map((d) => d.path)).toEqual([expect.stringContaining(deleted.id)]);
    expect(extractor.calls).toEqual([]);
  });

  it('looks a file up with files.info when the run has no Slack object for it', async () => {
    const file = text('later.txt', 'after a restart');
    const { access } = await threadWith([file], { withObjects: false });
    expect((await access.readText('F1')).text).toBe('after a restart');
    expect(bed.slack.callsTo('files.info').map((c) => c.body.file)).toEqual([file.id]);
  });

  it('hands each first extraction to the indexing hook, once', async () => {
    const indexed: Array<[string, string]> = [];
    const { threadId, access } = await threadWith([text('index-me.txt', 'words to find')]);
    const hooked = createThreadFileAccess({
      db: bed.handle.db,
      threadId,
      files: access.list(),
      source: createSlackFileSource({ db: bed.handle.db, slack: { botToken: bed.slack.botToken, apiUrl: bed.slack.apiUrl } }),
      extractor,
      limits: { maxFileBytes: 1024 * 1024, maxImageBytes: 64 * 1024 },
      onExtracted: async (contentHash, document) => {
        indexed.push([contentHash, document.text]);
      },
    });
    await hooked.readText('F1');
    await hooked.readText('F1');
    expect(indexed).toEqual([[expect.stringMatching(/^[0-9a-f]{64}$/), 'words to find']]);
  });

  it('passes search to the searcher with the content hashes of the files it extracted', async () => {
    const { threadId, access } = await threadWith([text('a.txt', 'alpha'), text('b.txt', 'beta')]);
    const seen: Array<{ files: string[]; hashes: number; query: string | string[] }> = [];
    const searching = createThreadFileAccess({
      db: bed.handle.db,
      threadId,
      files: access.list(),
      source: createSlackFileSource({ db: bed.handle.db, slack: { botToken: bed.slack.botToken, apiUrl: bed.slack.apiUrl } }),
      extractor,
      limits: { maxFileBytes: 1024 * 1024, maxImageBytes: 64 * 1024 },
      searcher: async ({ files, contentHashes, query }) => {
        seen.push({ files: files.map((f) => f.id), hashes: contentHashes.size, query });
        return [];
      },
    });
    await searching.search('*', 'alpha', 5);
    await searching.search('F2', 'beta', 5);
    expect(seen).toEqual([
      { files: ['F1', 'F2'], hashes: 2, query: 'alpha' },
      { files: ['F2'], hashes: 1, query: 'beta' },
    ]);
  });

  it('tells the model an image has no text and how to see it', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64)]);
    const { access } = await threadWith([bed.slack.addFile({ name: 'shot.png', mimetype: 'image/png', content: png })]);
    await expect(access.readText('F1')).rejects.toMatchObject({
      code: 'unsupported',
      message: 'shot.png is an image, so it has no text to read: load_file(F1) shows it to me as a picture.',
    });
  });
});
