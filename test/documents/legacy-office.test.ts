/**
 * .doc, .xls and .ppt: the binary Office files of 1997–2003. Fixtures are built here: the .xls with SheetJS's BIFF8
 * writer, the .ppt as a real OLE container (cfb) holding a PowerPoint record stream with two slides. No .doc writer
 * exists in Node, so the .doc case checks the sentence a .doc that no library can read gets.
 */
import CFB from 'cfb';
import * as XLSX from 'xlsx';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentExtractor, detectDocumentKind } from '../../src/documents';

/** A PowerPoint record: version/instance, type, length, body. */
function record(type: number, body: Buffer, { container = false, instance = 0 } = {}): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt16LE((instance << 4) | (container ? 0xf : 0));
  header.writeUInt16LE(type, 2);
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

function buildPpt(slides: string[][]): Buffer {
  const texts = slides.flatMap((lines, i) => [
    record(0x03f3, Buffer.alloc(20, i)), // SlidePersistAtom
    ...lines.map((line, j) => Buffer.concat([record(0x0f9f, Buffer.from([j === 0 ? 0 : 1, 0, 0, 0])), record(0x0fa0, Buffer.from(line, 'utf16le'))])),
  ]);
  const slideList = record(0x0ff0, Buffer.concat(texts), { container: true });
  const documentContainer = record(0x03e8, slideList, { container: true });
  const container = CFB.utils.cfb_new();
  CFB.utils.cfb_add(container, 'PowerPoint Document', documentContainer);
  CFB.utils.cfb_add(container, 'Current User', Buffer.alloc(16));
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Buffer);
}

describe('legacy Office files', () => {
  const extractor = createDocumentExtractor({ maxThreads: 1 });
  afterAll(() => extractor.close());

  it('reads an .xls workbook as one table per sheet', async () => {
    const workbook = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([['Region', 'Revenue'], ['North', 1200], ['South', 950]]), 'Sales');
    XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([['Owner'], ['Dana']]), 'People');
    const bytes = XLSX.write(workbook, { bookType: 'biff8', type: 'buffer' }) as Buffer;
    expect(detectDocumentKind(bytes, 'sales')).toBe('xls');

    const document = await extractor.extract({ bytes: new Uint8Array(bytes), name: 'sales.xls' });
    expect(document.pageCount).toBe(2);
    expect(document.text).toContain('## Sheet: Sales');
    expect(document.text).toMatch(/\| North \| 1200 \|/);
    expect(document.segments.map((s) => s.label)).toEqual(["Sheet 'Sales'", "Sheet 'People'"]);
  });

  it('reads a .ppt deck slide by slide, titles as headings', async () => {
    const bytes = buildPpt([['Roadmap 2026', 'Ship OCR for scans'], ['Risks', 'Legacy formats still circulate']]);
    expect(detectDocumentKind(bytes, 'deck')).toBe('ppt');
    const document = await extractor.extract({ bytes: new Uint8Array(bytes), name: 'deck.ppt' });
    expect(document.pageCount).toBe(2);
    expect(document.text).toContain('## Slide 1: Roadmap 2026');
    expect(document.text).toContain('Ship OCR for scans');
    expect(document.text).toContain('## Slide 2: Risks');
    expect(document.outline.map((entry) => entry.title)).toEqual(['Roadmap 2026', 'Risks']);
  });

  it('gives a .doc no library can read the "save it as .docx" sentence, never a generic failure', async () => {
    const container = CFB.utils.cfb_new();
    CFB.utils.cfb_add(container, 'WordDocument', Buffer.alloc(64));
    const bytes = Buffer.from(CFB.write(container, { type: 'buffer' }) as Buffer);
    await expect(extractor.extract({ bytes: new Uint8Array(bytes), name: 'memo.doc' })).rejects.toMatchObject({
      code: 'unsupported',
      message: 'memo.doc is an old binary Office file that I could not read; save it as .docx and share it again.',
    });
  });
});
