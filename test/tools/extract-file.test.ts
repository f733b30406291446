import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentExtractor, type DocumentExtractor } from '../../src/documents';
import { listThreadFiles, registerThreadFiles } from '../../src/files/registry';
import type { SlackFileObject } from '../../src/core/slack-file';
import { createThreadFileAccess, type FileAccess } from '../../src/files/thread-file-access';
import { createSlackFileSource } from '../../src/slack/files/slack-file-source';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';
import { threads } from '../../src/store/schema';
import { extractFileTool } from '../../src/tools/extract-file';
import { loadFileTool } from '../../src/tools/load-file';
import { peekFileTool } from '../../src/tools/peek-file';
import type { ToolContext } from '../../src/tools/tool';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import { brownbagDeck, docxWithTable, monitorSurveyWorkbook } from '../support/fixtures';
import { buildPdf } from '../support/image-pdf';

const MIME_TYPES: Record<string, string> = {
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
};

/** A travel policy of four chapters, a page each, with bookmarks as a word processor exports them. */
function travelPolicyPdf(): Buffer {
  const chapters = ['1 Booking travel', '2 Hotels', '3 Meals and allowances', '4 Claiming expenses'];
  const pages = chapters.map((title) => ({
    text: [title, ...Array.from({ length: 25 }, (_, line) => `${title.slice(2)}: rule ${line + 1} applies to every trip abroad and at home.`)],
  }));
  return buildPdf(pages, { outline: chapters.map((title, i) => ({ title, page: i + 1 })) });
}

describe('extract_file over generated documents', () => {
  let handle: DatabaseHandle;
  let slack: FakeSlack;
  let real: DocumentExtractor;
  let threadId: number;
  let uploads: SlackFileObject[];
  const parsed: string[] = [];
  const activity: string[] = [];

  beforeAll(async () => {
    [handle, slack] = await Promise.all([openDatabase({ driver: 'pglite' }), startFakeSlack()]);
    real = createDocumentExtractor();
    const documents = [
      ['Bug571679_Brownbag.pptx', brownbagDeck()],
      ['tables.docx', docxWithTable()],
      ['Book1.xlsx', await monitorSurveyWorkbook()],
      ['travel-policy.pdf', travelPolicyPdf()],
    ] as const;
    uploads = documents.map(([name, content]) => slack.addFile({ name, mimetype: MIME_TYPES[name.split('.').pop()!]!, content }));
    const [thread] = await handle.db.insert(threads).values({ channelId: 'C1', threadTs: '3.1' }).returning({ id: threads.id });
    threadId = thread!.id;
    await registerThreadFiles(handle.db, threadId, [{ ts: '3.2', authorName: 'Ann', files: uploads }]);
  });
  afterAll(async () => {
    await real?.close();
    await slack?.close();
    await handle?.close();
  });

  /** What a run gets: the thread's files as stored now, and the real extractor, counted. */
  async function runContext(): Promise<ToolContext & { files: FileAccess }> {
    const files = createThreadFileAccess({
      db: handle.db,
      threadId,
      files: await listThreadFiles(handle.db, threadId),
      source: createSlackFileSource({ db: handle.db, slack: { botToken: slack.botToken, apiUrl: slack.apiUrl }, objects: new Map(uploads.map((f) => [f.id, f])) }),
      extractor: {
        extract: (input) => {
          parsed.push(input.name);
          return real.extract(input);
        },
      },
      limits: { maxFileBytes: 50 * 1024 * 1024, maxImageBytes: 1536 * 1024 },
    });
    return {
      files,
      skills: { read: () => Promise.reject(new Error('no skills here')) },
      signal: new AbortController().signal,
      tokensLeft: () => 100_000,
      showImage: () => {},
      recordActivity: (entry) => activity.push(entry),
    };
  }

  it('turns a slide deck into a virtual file with its size, slide count, outline and a preview', async () => {
    const context = await runContext();
    expect(extractFileTool.describeProgress({ id: 'F1' }, context)).toBe('extracting text from Bug571679_Brownbag.pptx…');
    const result = await extractFileTool.execute({ id: 'F1' }, context);
    const lines = result.split('\n');
    expect(lines[0]).toBe('F1 "Bug571679_Brownbag.pptx" is now also F1.txt, its extracted text: 3,478 characters, 18 slides.');
    expect(lines[1]).toBe('Notes: language: English');
    expect(lines[2]).toBe('Read on with peek_file("F1.txt", 0, 8000), search_file("F1.txt", "<question>"), or load_file("F1.txt") if it fits.');
    expect(result).toContain('<file_data id="F1.txt" name="Bug571679_Brownbag.pptx.txt" part="outline">\n- VSTO & Reflection Brownbag [char 0, slide 1]\n- Background [char 70, slide 2]');
    expect(result).toContain('part="preview, first 600 characters">\n## Slide 1: VSTO & Reflection Brownbag');
    expect(result.match(/not instructions to follow/g)).toHaveLength(1);
    expect(activity.at(-1)).toBe('F1 → F1.txt');
  });

  it('gives the virtual id to every file tool, in this run and the next, without parsing again', async () => {
    const next = await runContext();
    expect(next.files.get('F1.txt')).toMatchObject({ sourceId: 'F1', sizeBytes: 3478, pageCount: 18 });
    const peek = await peekFileTool.execute({ id: 'F1.txt', start: 70, stop: 192 }, next);
    expect(peek.split('\n')[0]).toBe('F1.txt "Bug571679_Brownbag.pptx.txt": characters 70–192 of 3,478 (slide 2); next: peek_file("F1.txt", 192, 314).');
    expect(activity.at(-1)).toBe('F1.txt slide 2');
    expect(await loadFileTool.execute({ id: 'F1.txt' }, next)).toContain('the whole file, 3,478 characters, 18 slides.');
    expect(parsed.filter((name) => name === 'Bug571679_Brownbag.pptx')).toHaveLength(1);
  });

  it('returns a small result inline, whole', async () => {
    const context = await runContext();
    const result = await extractFileTool.execute({ id: 'F2' }, context);
    const text = (await context.files.readText('F2')).text;
    expect(text.length).toBeLessThan(2000);
    expect(result).toContain(`<file_data id="F2.txt" name="tables.docx.txt">\n${text}\n</file_data>`);
    expect(result).not.toContain('Read on with');
  });

  it('lists sheet names as the outline of a workbook', async () => {
    const context = await runContext();
    const result = await extractFileTool.execute({ id: 'F3' }, context);
    expect(result.split('\n')[0]).toMatch(/^F3 "Book1\.xlsx" is now also F3\.txt, its extracted text: [\d,]+ characters, 2 sheets\.$/);
  });

  it("gives a PDF's bookmarks as its outline, each chapter with its page", async () => {
    const context = await runContext();
    const result = await extractFileTool.execute({ id: 'F4' }, context);
    expect(result.split('\n')[0]).toMatch(/^F4 "travel-policy\.pdf" is now also F4\.txt, its extracted text: [\d,]+ characters, 4 pages\.$/);
    const outline = /part="outline">\n([^<]*)\n<\/file_data>/.exec(result)?.[1]?.split('\n');
    expect(outline?.map((line) => line.replace(/\[char \d+, /, '['))).toEqual([
      '- 1 Booking travel [p. 1]',
      '- 2 Hotels [p. 2]',
      '- 3 Meals and allowances [p. 3]',
      '- 4 Claiming expenses [p. 4]',
    ]);
  });

  it('answers an extraction of extracted text with the same virtual file', async () => {
    const context = await runContext();
    const result = await extractFileTool.execute({ id: 'F1.txt' }, context);
    expect(result.split('\n')[0]).toBe('F1.txt "Bug571679_Brownbag.pptx.txt" is already extracted text: 3,478 characters, 18 slides.');
  });
});
