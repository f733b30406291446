import { beforeEach, describe, expect, it } from 'vitest';
import { computePreloads, cutPrefix } from '../../src/files/preload';
import { prefetchThreadFiles } from '../../src/files/prefetch';
import type { SlackFileObject } from '../../src/core/slack-file';
import { FileReadError, type ExtractedDocument } from '../../src/core/thread-file';
import { testDatabases } from '../support/databases';
import { useFileTestbed } from '../support/file-testbed';

const extractor = {
  calls: [] as string[],
  async extract({ bytes, name }: { bytes: Uint8Array; name: string }): Promise<ExtractedDocument> {
    extractor.calls.push(name);
    const text = Buffer.from(bytes).toString('utf8');
    if (text.startsWith('CORRUPT')) throw new FileReadError('corrupt', `I can't read ${name}: the file is damaged or cut short.`);
    return { text, outline: [], segments: [], notes: [] };
  },
};

describe('cutting a preload', () => {
  it('keeps short text whole and cuts long text at a line end near the limit', () => {
    expect(cutPrefix('short', 100)).toBe('short');
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    const cut = cutPrefix(lines, 100);
    expect(cut.endsWith('\n')).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut.length).toBeGreaterThanOrEqual(80);
  });

  it('never splits an emoji in half', () => {
    expect(cutPrefix('a😀b', 2)).toBe('a');
  });
});

describe.each(testDatabases())('preloads and prefetch on $label', (database) => {
  const bed = useFileTestbed(database);
  beforeEach(() => {
    extractor.calls.length = 0;
  });

  /** One message per file, in the order given (so the last file is the newest). */
  const accessTo = (files: SlackFileObject[]) => bed.threadWith(files, { extractor });

  const textFile = (name: string, content: string) => bed.slack.addFile({ name, mimetype: 'text/plain', content });
  const pdfFile = (name: string, content: string) => bed.slack.addFile({ name, mimetype: 'application/pdf', content });

  it('preloads nothing when PRELOAD_KB is 0', async () => {
    const { access, files } = await accessTo([textFile('a.log', 'hello')]);
    expect(await computePreloads(access, files, 0)).toEqual(new Map());
    expect(bed.slack.downloads).toEqual([]);
  });

  it('preloads the first KB of text files, and a PDF only once its text is cached', async () => {
    const log = Array.from({ length: 400 }, (_, i) => `12:00:${String(i % 60).padStart(2, '0')} worker ${i} ok`).join('\n');
    const { access, files } = await accessTo([textFile('worker.log', log), pdfFile('spec.pdf', 'The spec says hi.')]);

    const first = await computePreloads(access, files, 1);
    expect([...first.keys()]).toEqual(['F1']);
    expect(log.startsWith(first.get('F1')!)).toBe(true);
    expect(first.get('F1')!.length).toBeLessThanOrEqual(1024);
    expect(extractor.calls).toEqual(['worker.log']);

    await access.readText('F2');
    const second = await computePreloads(access, files, 1);
    expect(second.get('F2')).toBe('The spec says hi.');
  });

  it('skips a preload that does not fit what is left of the total, and keeps the newest files first', async () => {
    const { access, files } = await accessTo([
      textFile('old.txt', 'o'.repeat(900)),
      textFile('middle.txt', 'm'.repeat(900)),
      textFile('new.txt', 'n'.repeat(300)),
      bed.slack.addFile({ name: 'shot.png', mimetype: 'image/png', content: Buffer.from('89504e470d0a1a0a', 'hex') }),
    ]);
    const preloads = await computePreloads(access, files, 1, { totalKb: 1.25 });
    // 1,280 characters in all: new.txt (300) and middle.txt (900) fit; old.txt would not.
    expect([...preloads.keys()]).toEqual(['F3', 'F2']);
  });

  it('prefetches every readable file once, reporting the unreadable ones', async () => {
    const { access, files } = await accessTo([
      textFile('a.txt', 'alpha'),
      pdfFile('broken.pdf', 'CORRUPT bytes'),
      pdfFile('b.pdf', 'beta'),
      bed.slack.addFile({ name: 'shot.png', mimetype: 'image/png', content: Buffer.from('89504e470d0a1a0a', 'hex') }),
    ]);
    const infos: string[] = [];
    const result = await prefetchThreadFiles(access, files, { logger: { info: (m) => infos.push(m), warn: (m) => infos.push(m) } });
    expect(result.read.sort()).toEqual(['F1', 'F3']);
    expect(result.failed).toEqual([{ id: 'F2', reason: "I can't read broken.pdf: the file is damaged or cut short." }]);
    expect(infos).toEqual(['a prefetched file is unreadable']);

    // The question that follows finds everything cached.
    await access.readText('F3');
    await expect(access.readText('F2')).rejects.toMatchObject({ code: 'corrupt' });
    expect(bed.slack.downloads).toHaveLength(3);
    expect(extractor.calls.sort()).toEqual(['a.txt', 'b.pdf', 'broken.pdf']);
  });
});
