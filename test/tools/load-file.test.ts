import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileAccess } from '../../src/files/thread-file-access';
import { createLoadFileTool, loadFileTool } from '../../src/tools/load-file';
import type { ToolContext } from '../../src/tools/tool';
import { openThreadWithFiles, type ThreadWithFiles } from '../support/thread-with-files';
import { airworthinessDirective, docxWithTable, protectedMemo, slackTokenScreenshot } from '../support/fixtures';

const MIME_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  png: 'image/png',
  csv: 'text/csv',
};

describe('load_file over generated documents', () => {
  let thread: ThreadWithFiles;
  let files: FileAccess;
  const activity: string[] = [];
  const shown: Array<{ fileId: string; name: string; dataUrl: string }> = [];

  /** The directive's extracted length, as the tools print it. */
  let chars: string;
  let tokens: string;
  beforeAll(async () => {
    // F1 … F4, in this order.
    const uploads = [
      ['tables.docx', docxWithTable()],
      ['directive.pdf', airworthinessDirective()],
      ['oauth-page.png', slackTokenScreenshot()],
      ['memo.pdf', protectedMemo('s3cret')],
    ] as const;
    thread = await openThreadWithFiles(uploads.map(([name, bytes]) => ({ name, mimetype: MIME_TYPES[name.split('.').pop()!]!, bytes })));
    files = thread.files;
    const length = (await files.readText('F2')).text.length;
    chars = length.toLocaleString('en-US');
    tokens = Math.ceil(length / 4).toLocaleString('en-US');
  });
  afterAll(() => thread?.close());

  const context = (tokensLeft = 100_000): ToolContext => ({
    files,
    skills: { read: () => Promise.reject(new Error('no skills here')) },
    signal: new AbortController().signal,
    tokensLeft: () => tokensLeft,
    showImage: (image) => shown.push(image),
    recordActivity: (entry) => activity.push(entry),
  });

  it('loads a small document whole, framed as data', async () => {
    const result = await loadFileTool.execute({ id: 'F1' }, context());
    const text = (await files.readText('F1')).text;
    expect(result.split('\n')[0]).toBe(`F1 "tables.docx": the whole file, ${text.length} characters.`);
    expect(result).toContain(`<file_data id="F1" name="tables.docx">\n${text}\n</file_data>`);
    expect(activity.at(-1)).toBe('F1 (whole)');
    expect(loadFileTool.describeProgress({ id: 'F1' }, context())).toBe('reading tables.docx…');
  });

  it('loads a 15-page PDF when it fits, naming the pages read', async () => {
    const result = await loadFileTool.execute({ id: 'F2' }, context(50_000));
    expect(result.split('\n')[0]).toBe(`F2 "directive.pdf": the whole file, ${chars} characters, 15 pages.`);
    expect(activity.at(-1)).toBe('F2 p. 1–15');
  });

  it('refuses to load what would not fit, and says what to do instead', async () => {
    const before = activity.length;
    const result = await loadFileTool.execute({ id: 'F2' }, context(10_000));
    expect(result).toBe(
      `Not loaded: F2 "directive.pdf" is ${chars} characters (about ${tokens} tokens), more than fits in the context left ` +
        '(about 8,000 tokens free). Instead, peek_file("F2", 0, 8000) reads a slice and tells you how to page on; ' +
        'search_file("F2", "<your question>") finds the passages that matter; extract_file("F2") gives its outline and a preview.',
    );
    expect(activity.length).toBe(before);
  });

  it('refuses beyond its own cap even with room to spare', async () => {
    const small = createLoadFileTool({ maxChars: 10_000 });
    expect(await small.execute({ id: 'F2' }, context(1_000_000))).toContain('more than the 10,000 characters load_file returns at once');
  });

  it('shows an image on the next message instead of returning bytes', async () => {
    expect(loadFileTool.describeProgress({ id: 'F3' }, context())).toBe('looking at oauth-page.png…');
    const result = await loadFileTool.execute({ id: 'F3' }, context());
    expect(result).toBe('Image F3 "oauth-page.png", 1280×800 px is attached to the next message; look at it there.');
    expect(shown).toEqual([{ fileId: 'F3', name: 'oauth-page.png', dataUrl: expect.stringMatching(/^data:image\/png;base64,/) }]);
    expect(activity.at(-1)).toBe('F3 (image)');
  });

  it('lets a password-protected PDF fail with its sentence', async () => {
    await expect(loadFileTool.execute({ id: 'F4' }, context())).rejects.toMatchObject({
      code: 'encrypted',
      message: "memo.pdf is password-protected, so I can't read it. Share an unprotected copy?",
    });
  });
});
