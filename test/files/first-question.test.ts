/**
 * The first question about a document posted with it: its extraction is waited for (a bounded time) so the first
 * request already has its page count and preload; a document that takes longer is listed as extracting, and
 * extract_file then joins the read under way instead of starting another. Also: a canvas from Slack is read as HTML.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { renderFilesBlock } from '../../src/context/files-block';
import { createDocumentExtractor } from '../../src/documents';
import { awaitFreshExtractions, computePreloads } from '../../src/files/preload';
import type { ExtractedDocument } from '../../src/core/thread-file';
import { testDatabases } from '../support/databases';
import { useFileTestbed } from '../support/file-testbed';

/** Extracts "name: text" documents; files named slow* wait until released. */
function controllableExtractor() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const calls: string[] = [];
  return {
    calls,
    release,
    async extract({ bytes, name }: { bytes: Uint8Array; name: string }): Promise<ExtractedDocument> {
      calls.push(name);
      if (name.startsWith('slow')) await released;
      const text = Buffer.from(bytes).toString('utf8');
      return { text, pageCount: 3, outline: [], segments: [], notes: [] };
    },
  };
}

describe.each(testDatabases())('the first question on $label', (database) => {
  const bed = useFileTestbed(database);
  const html = createDocumentExtractor({ maxThreads: 1 });
  afterAll(() => html.close());
  beforeEach(() => undefined);

  it('holds the page count and preload of a small PDF posted with the question', async () => {
    const extractor = controllableExtractor();
    const { access, files } = await bed.threadWith(
      [bed.slack.addFile({ name: 'spec.pdf', mimetype: 'application/pdf', content: 'The spec says hi.' })],
      { extractor },
    );
    expect(files[0]!.pageCount).toBeUndefined();
    // The documented bound (3 s); the fake answers at once, so the wait ends as soon as the read does.
    await awaitFreshExtractions(access, files);
    const listed = access.list();
    expect(listed[0]!.pageCount).toBe(3);
    const preloads = await computePreloads(access, listed, 8);
    expect(preloads.get('F1')).toBe('The spec says hi.');
    expect(renderFilesBlock(listed, { preloads })).toMatch(/F1 \| "spec\.pdf" \| pdf \| 17 B \| 3 \| yes, whole/);
  });

  it('lists a document still being read as extracting, and extract_file joins that read', async () => {
    const extractor = controllableExtractor();
    const { access, files } = await bed.threadWith(
      [bed.slack.addFile({ name: 'slow-scan.pdf', mimetype: 'application/pdf', content: 'Recognised at last.' })],
      { extractor },
    );
    await awaitFreshExtractions(access, files, { waitMs: 50 });
    const listed = access.list();
    expect(listed[0]!.pending?.readyInSeconds).toBeGreaterThanOrEqual(1);
    expect(renderFilesBlock(listed)).toMatch(/F1 \| "slow-scan\.pdf" \| pdf \| 19 B \| - \| extracting, ready in about \d+ s/);

    const extracted = access.extract('F1');
    extractor.release();
    const { file, document } = await extracted;
    expect(file.id).toBe('F1.txt');
    expect(document.text).toBe('Recognised at last.');
    expect(extractor.calls).toEqual(['slow-scan.pdf']);
    expect(access.get('F1').pending).toBeUndefined();
  });

  it('marks a document read by OCR as "scanned, OCR" in the files list, in this run and the next', async () => {
    const scanned = {
      async extract(): Promise<ExtractedDocument> {
        return { text: '--- page 1 ---\nSigned contract', pageCount: 1, outline: [], segments: [], notes: ['scanned, OCR: the text of p. 1 was recognised from the page images (eng), mean confidence 88%; expect misread characters'] };
      },
    };
    const { access, open, threadId } = await bed.threadWith([bed.slack.addFile({ name: 'contract.pdf', mimetype: 'application/pdf', content: 'scan' })], { extractor: scanned });
    await access.readText('F1');
    expect(renderFilesBlock(access.list())).toMatch(/F1 \| "contract\.pdf" \| pdf \(scanned, OCR\) \| 4 B \| 1 \| no/);
    const { listThreadFiles } = await import('../../src/files/registry');
    const later = await listThreadFiles(bed.handle.db, threadId);
    expect(later[0]).toMatchObject({ id: 'F1', scanned: true, pageCount: 1 });
    expect(open(later).get('F1').scanned).toBe(true);
  });

  it('names a document’s language in the files list, beside OCR, in this run and the next', async () => {
    const germanScan = {
      async extract(): Promise<ExtractedDocument> {
        return { text: '--- page 1 ---\nDer Vertrag', pageCount: 1, outline: [], segments: [], notes: ['scanned, OCR: p. 1 recognised (deu)', 'language: German'] };
      },
    };
    const { access, threadId } = await bed.threadWith([bed.slack.addFile({ name: 'vertrag.pdf', mimetype: 'application/pdf', content: 'vtrg' })], { extractor: germanScan });
    await access.readText('F1');
    expect(renderFilesBlock(access.list())).toMatch(/F1 \| "vertrag\.pdf" \| pdf \(scanned, OCR; German\) \| 4 B \| 1 \| no/);
    const { listThreadFiles } = await import('../../src/files/registry');
    expect((await listThreadFiles(bed.handle.db, threadId))[0]).toMatchObject({ id: 'F1', language: 'German' });
  });

  it('reads a Slack canvas as an HTML document, headings kept', async () => {
    const canvas = bed.slack.addFile({
      name: 'Launch plan',
      mimetype: 'application/vnd.slack-docs',
      filetype: 'quip',
      content: '<html><body><h1>Launch plan</h1><p>Owner: Dana.</p><h2>Risks</h2><ul><li>OCR is slow</li></ul></body></html>',
    });
    const { access } = await bed.threadWith([canvas], { extractor: html });
    const document = await access.readText('F1');
    expect(document.text).toContain('# Launch plan');
    expect(document.text).toContain('## Risks');
    expect(document.outline.map((entry) => entry.title)).toEqual(['Launch plan', 'Risks']);
  });
});
