import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentExtractor } from '../../src/documents';
import { FileReadError } from '../../src/core/thread-file';
import { countryPage, lectureNotes, onePagePdf } from '../support/fixtures';

const text = (value: string) => new TextEncoder().encode(value);
const failureOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected the extraction to fail');
    },
    (error: unknown) => error,
  );

describe('the extractor', () => {
  const extractor = createDocumentExtractor();
  afterAll(() => extractor.close());

  it('moves bytes that own their buffer to the worker instead of copying them', async () => {
    const bytes = text('# Plan\n\nShip it.\n');
    const document = await extractor.extract({ bytes, name: 'plan.md' });
    expect(document.text).toBe('# Plan\n\nShip it.\n');
    expect(document.outline).toEqual([{ title: 'Plan', level: 1, offset: 0 }]);
    expect(bytes.byteLength).toBe(0);
  });

  it('copies a view into a larger buffer, leaving the caller its bytes', async () => {
    const whole = text('header|notes.txt body|trailer');
    const view = whole.subarray(7, 21);
    const document = await extractor.extract({ bytes: view, name: 'notes.txt' });
    expect(document.text).toBe('notes.txt body');
    expect(view.byteLength).toBe(14);
  });

  it.each([
    ['empty.txt', new Uint8Array(0), 'empty', 'empty.txt is empty (0 bytes), so there is nothing to read.'],
    ['blank.txt', text('  \n\t\n'), 'empty', 'blank.txt contains no text that I could extract.'],
    ['photo.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'unsupported', "photo.png is an image, which I can't extract text from."],
    ['tool.bin', new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0]), 'unsupported', "tool.bin is not a document type I know, which I can't extract text from."],
  ])('fails %s with %s and a sentence naming it', async (name, bytes, code, message) => {
    const error = await failureOf(extractor.extract({ bytes, name }));
    expect(error).toBeInstanceOf(FileReadError);
    expect(error).toMatchObject({ code, message });
  });

  it("rejects with the caller's abort reason when the caller gives up", async () => {
    const controller = new AbortController();
    controller.abort(new Error('the run was cancelled'));
    const error = await failureOf(extractor.extract({ bytes: text('hello'), name: 'a.txt', signal: controller.signal }));
    expect(error).toEqual(new Error('the run was cancelled'));
  });

  it('rejects what is still being read when it is closed, with an internal error rather than a file error', async () => {
    const closing = createDocumentExtractor();
    const pending = failureOf(closing.extract({ bytes: text('late'), name: 'late.txt' }));
    await closing.close();
    const error = await pending;
    expect(error).not.toBeInstanceOf(FileReadError);
    expect(error).toMatchObject({ message: 'The document extractor was closed while it was reading late.txt.' });
  });

  it('loads the worker entry under tsx as well (npm start, npm run bench)', async () => {
    const script = fileURLToPath(new URL('./fixtures/extract-under-tsx.ts', import.meta.url));
    const tsxCli = fileURLToPath(import.meta.resolve('tsx/cli'));
    const { stdout } = await promisify(execFile)(process.execPath, [tsxCli, script], { timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ text: 'Hello from a worker\n', mainThreadLoadedPdfjs: false });
  });
});

describe('workers whose heap has grown', () => {
  it('are replaced between files, and every file is still read', async () => {
    // Any worker's heap is above 1 MB: each file is read on a new thread.
    const recycling = createDocumentExtractor({ maxThreads: 1, retireAboveHeapMb: 1 });
    try {
      const names = ['a.md', 'b.md', 'c.md'];
      const documents = await Promise.all(names.map((name) => recycling.extract({ bytes: text(`# ${name}\n`), name })));
      expect(documents.map((d) => d.text)).toEqual(['# a.md\n', '# b.md\n', '# c.md\n']);
      expect(recycling.stats()).toMatchObject({ retired: 3, completed: 3 });
    } finally {
      await recycling.close();
    }
  });

  it('are kept while their heap stays small', async () => {
    const keeping = createDocumentExtractor({ maxThreads: 1 });
    try {
      await keeping.extract({ bytes: text('one'), name: 'one.txt' });
      await keeping.extract({ bytes: text('two'), name: 'two.txt' });
      expect(keeping.stats()).toMatchObject({ retired: 0, workers: 1 });
    } finally {
      await keeping.close();
    }
  });
});

describe('the extractor on heavy files', () => {
  const hello = () => new Uint8Array(onePagePdf(['Hello World', 'Grüß Gott, Привет, Γειά σου']));

  it('parses PDFs off the main thread: pdf.js is never loaded here', async () => {
    const extractor = createDocumentExtractor();
    try {
      const document = await extractor.extract({ bytes: hello(), name: 'multilang.pdf' });
      expect(document.text).toContain('Hello World');
      expect(document.text).toContain('Привет');
      expect((globalThis as { pdfjsWorker?: unknown }).pdfjsWorker).toBeUndefined();
    } finally {
      await extractor.close();
    }
  });

  it('stops a file that runs past its timeout and goes on reading the next one', async () => {
    const extractor = createDocumentExtractor({ timeoutMs: 1 });
    const relaxed = createDocumentExtractor();
    try {
      const name = 'lecture-notes.pdf';
      const error = await failureOf(extractor.extract({ bytes: new Uint8Array(lectureNotes()), name }));
      expect(error).toMatchObject({
        code: 'timeout',
        message: `Reading ${name} took longer than 1 ms, so I stopped. A smaller or simpler file may work.`,
      });
      const next = await relaxed.extract({ bytes: hello(), name: 'multilang.pdf' });
      expect(next.pageCount).toBe(1);
    } finally {
      await Promise.all([extractor.close(), relaxed.close()]);
    }
  });

  it('turns a worker running out of memory into out_of_memory, and the pool recovers', async () => {
    const extractor = createDocumentExtractor({ maxMemoryMb: 32 });
    try {
      // A 1 MB saved page: its DOM alone is far past 32 MB.
      const name = 'norland.html';
      const error = await failureOf(extractor.extract({ bytes: new TextEncoder().encode(countryPage(1024)), name }));
      expect(error).toMatchObject({
        code: 'out_of_memory',
        message: `Reading ${name} needed more than the 32 MB of memory I allow per file, so I stopped.`,
      });
      const next = await extractor.extract({ bytes: hello(), name: 'multilang.pdf' });
      expect(next.text).toContain('Hello World');
    } finally {
      await extractor.close();
    }
  });
});
